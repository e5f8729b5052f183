-- ratelimit: decide one request's limits for one partition, all or nothing, in one call.
-- The same sliding window as dev.ratelimit.internal.engine.SlidingWindowCount, on one hash per count:
--   a anchor (creation time), s step length, l permit limit (both from the request that created the
--   count), n newest step touched (counted from the anchor), '0'..'7' permits spent in step j at slot j % 8.
-- A count whose permits have all returned holds no information: it is re-anchored by the next request
-- with that request's size, exactly like a missing key; so expiry (set to the moment the last permit
-- returns) loses nothing.
--
-- Times are in microseconds (the server's clock's unit), integers well inside a double's 2^53.
--
-- KEYS[i]  the count of limit i (all in one hash slot: they share the partition's hash tag)
-- ARGV[1]  now; empty: the server's clock (a test passes its fake clock's reading instead)
-- ARGV[2]  milliseconds added to every expiry (0 in production; a test's fake time stands still)
-- ARGV[1+2i], ARGV[2+2i]  permit limit and step length of limit i
-- Reply, four integers per limit: 1 if its count had a permit for this request else 0; permits left;
-- microseconds until the oldest spent permit returns (-1: nothing spent); the start of the step the
-- permit was spent in (the receipt; -1: nothing spent)
if redis.replicate_commands then
  redis.replicate_commands() -- Redis < 5: TIME before a write needs effects replication
end

local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[1])
end
local extraMs = tonumber(ARGV[2])

local FIELDS = {'a', 's', 'l', 'n', '0', '1', '2', '3', '4', '5', '6', '7'}
local counts = {}
local all = true

for i = 1, #KEYS do
  local v = redis.call('HMGET', KEYS[i], unpack(FIELDS))
  local c = {t = now, sum = 0, slot = {}}
  if v[1] then
    c.a, c.s, c.l, c.n = tonumber(v[1]), tonumber(v[2]), tonumber(v[3]), tonumber(v[4])
    for j = 0, 7 do
      c.slot[j] = tonumber(v[5 + j])
    end
    -- a server clock that stepped back never re-opens a count: it stays in its newest step
    local newestStart = c.a + c.n * c.s
    if c.t < newestStart then
      c.t = newestStart
    end
    local d = c.t - c.a
    local step = (d - math.fmod(d, c.s)) / c.s
    local gap = step - c.n
    if gap >= 8 then
      for j = 0, 7 do
        c.slot[j] = 0
      end
    elseif gap > 0 then
      for j = c.n + 1, step do
        c.slot[j % 8] = 0
      end
    end
    if gap > 0 then
      c.n = step
    end
    for j = 0, 7 do
      c.sum = c.sum + c.slot[j]
    end
  end
  if c.sum == 0 then
    c.t = now
    c.a, c.s, c.l, c.n = now, tonumber(ARGV[2 + 2 * i]), tonumber(ARGV[1 + 2 * i]), 0
    for j = 0, 7 do
      c.slot[j] = 0
    end
  end
  all = all and c.sum < c.l
  counts[i] = c
end

local reply = {}
for i = 1, #KEYS do
  local c = counts[i]
  local receipt = -1
  if all then
    local index = c.n % 8
    c.slot[index] = c.slot[index] + 1
    c.sum = c.sum + 1
    receipt = c.a + c.n * c.s
    redis.call('HSET', KEYS[i], 'a', c.a, 's', c.s, 'l', c.l, 'n', c.n,
      '0', c.slot[0], '1', c.slot[1], '2', c.slot[2], '3', c.slot[3],
      '4', c.slot[4], '5', c.slot[5], '6', c.slot[6], '7', c.slot[7])
    -- the newest step's permits return last: then the count is empty, as good as missing
    local ms = math.ceil((c.a + (c.n + 8) * c.s - c.t) / 1000) + extraMs
    redis.call('PEXPIRE', KEYS[i], ms)
  end
  local reset = -1
  if c.sum > 0 then
    for j = math.max(0, c.n - 7), c.n do
      if c.slot[j % 8] > 0 then
        reset = c.a + (j + 8) * c.s - c.t
        break
      end
    end
  end
  local permit = 0
  if c.sum < c.l or receipt ~= -1 then
    permit = 1
  end
  local left = c.l - c.sum
  if permit == 0 then
    left = 0
  end
  reply[4 * i - 3] = permit
  reply[4 * i - 2] = left
  reply[4 * i - 1] = reset
  reply[4 * i] = receipt
end
return reply
