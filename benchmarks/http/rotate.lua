-- wrk script: GET one path, each request with the next of WRK_KEYS caller keys (a rotation over the whole
-- set, each wrk thread starting elsewhere in it), requests prepared once. Caller by WRK_MODE:
--   key   X-Api-Key: key-<i>                      (anonymous callers, partitioned by the header)
--   gold  Authorization: Bearer user-<i>:gold     (the example's plan "gold", partitioned by principal)
--   forwarded  X-Forwarded-For: 198.18.<i/256>.<i%256>  (anonymous callers behind the loopback proxy,
--              partitioned by client address: ratelimit.partition-by=...,address, trusted-proxies=127.0.0.1)
-- done() prints one JSON line: requests, duration, non-2xx answers, socket errors, latency percentiles.
local keys = tonumber(os.getenv("WRK_KEYS") or "5000")
local mode = os.getenv("WRK_MODE") or "key"
local path = os.getenv("WRK_PATH") or "/todos/1"
local prefix = os.getenv("WRK_KEY_PREFIX") or "" -- keys of their own (the slices experiment's over-limit run)
local prepared = {}
local next_index = 0

function init(args)
  for i = 1, keys do
    local headers = { ["Accept"] = "application/json" }
    if mode == "gold" then
      headers["Authorization"] = "Bearer user-" .. i .. ":gold"
    elseif mode == "forwarded" then
      headers["X-Forwarded-For"] = "198.18." .. math.floor(i / 256) .. "." .. (i % 256)
    else
      headers["X-Api-Key"] = prefix .. "key-" .. i
    end
    prepared[i] = wrk.format("GET", path, headers)
  end
  next_index = math.random(keys) - 1
end

function request()
  next_index = next_index % keys + 1
  return prepared[next_index]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"non2xx":%d,"socket_errors":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d,"mean_us":%.1f,"max_us":%d}\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.mean, latency.max))
end
