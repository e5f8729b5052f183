-- ratelimit: the counts of one partition, with exactly the semantics of the in-process store
-- (dev.ratelimit.core.store.WindowCount and BucketCount): one call decides all the limits of a request,
-- all or nothing, or gives back what a decision spent.
--
-- Times are in microseconds, integers well inside a double's 2^53 (so a % b and floor(a / b) are exact).
-- A count is one string value, packed with struct (little-endian doubles):
--   window  'w', S (a byte: 8 sliding, 9 strict: the steps a permit stays out), anchor, step, limit, newest,
--           then S slots: the permits spent in step j at slot j % S, for newest - S < j <= newest; a permit
--           of step j returns at anchor + (j + S) * step
--   bucket  'b', tat, epoch, interval, limit (GCRA: full again at tat; epoch: when it last stopped being full)
-- A count that holds nothing (a window whose permits have all returned, a full bucket) is as good as a
-- missing one: the next request sizes it anew. So a count expires exactly when it comes to hold nothing
-- (its newest permit's return; a bucket's tat), and that loses nothing.
--
-- KEYS[i]  the count of limit i; all in one hash slot (they share the partition's hash tag)
-- ARGV[1]  'a' (acquire) or 'r' (release)
-- ARGV[2]  now; empty: the server's clock (a test passes its manual clock's reading instead)
-- ARGV[3]  milliseconds added to every expiry (0 in production; a manual clock stands while real time passes)
-- acquire: ARGV[4i .. 4i+3] for limit i: its code (algorithm s|t|b = sliding|strict|bucket, then kind
--          a|s|c = acquire|shadow|charge), permit limit, step (windows) or interval (bucket), permits
--          Reply, five integers per limit: state (0 spent, 1 unspent, 2 refused); permits left;
--          microseconds until the oldest permit returns / the bucket is full (-1: nothing spent);
--          microseconds until the request could be allowed (0 unless refused); receipt (-1: none)
-- release: ARGV[2i+2], ARGV[2i+3] for key i: the receipt and the permits to give back
--          Reply: the permits given back
local floor, max, min = math.floor, math.max, math.min
local spack, sunpack = struct.pack, struct.unpack

local now
if ARGV[2] == '' then
  if redis.replicate_commands then
    redis.replicate_commands() -- Redis < 5: TIME before a write needs effects replication
  end
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[2])
end
local padding = tonumber(ARGV[3])
local INT_MAX = 2147483647
local CAP = 4503599627370496 -- 2^52 us (142 years): how far past now a bucket in debt may go
local WINDOW = {[8] = '<c1Bdddddddddddd', [9] = '<c1Bddddddddddddd'}
local WINDOW_BYTES = {[8] = 2 + 8 * 12, [9] = 2 + 8 * 13}
local BUCKET = '<c1dddd'
local BUCKET_BYTES = 1 + 8 * 4

-- windows: c = {S, a (anchor), s (step), l (limit), n (newest step), sum, [1 .. S] = slots}

local function newWindow(steps, limit, step)
  local c = {S = steps, a = now, s = step, l = limit, n = 0, sum = 0}
  for x = 1, steps do
    c[x] = 0
  end
  return c
end

-- the window of a stored value (moved to now: steps that left it gave their permits back), or nil
local function loadWindow(raw)
  local S = raw and string.byte(raw, 2)
  if not S or string.byte(raw, 1) ~= 119 or #raw ~= (WINDOW_BYTES[S] or -1) then
    return nil
  end
  local c = {sunpack(WINDOW[S], raw)}
  local w = {S = S, a = c[3], s = c[4], l = c[5], n = c[6], sum = 0}
  for x = 1, S do
    w[x] = c[6 + x]
    w.sum = w.sum + w[x]
  end
  local elapsed = now - w.a
  if elapsed >= (w.n + 1) * w.s then -- a step has passed since the newest
    local current = floor(elapsed / w.s)
    if current - w.n >= S then
      for x = 1, S do
        w[x] = 0
      end
      w.sum = 0
    else
      for j = w.n + 1, current do
        local x = j % S + 1
        w.sum = w.sum - w[x]
        w[x] = 0
      end
    end
    w.n = current
  end
  return w
end

-- the oldest step with a permit out; requires sum > 0
local function oldest(c)
  for j = max(0, c.n - c.S + 1), c.n do
    if c[j % c.S + 1] > 0 then
      return j
    end
  end
  return c.n
end

local function saveWindow(key, c)
  if c.sum == 0 then
    redis.call('DEL', key)
    return
  end
  local idle = now
  for j = c.n, max(0, c.n - c.S + 1), -1 do -- the newest permit's return
    if c[j % c.S + 1] > 0 then
      idle = c.a + (j + c.S) * c.s
      break
    end
  end
  redis.call('SET', key, spack(WINDOW[c.S], 'w', c.S, c.a, c.s, c.l, c.n, unpack(c, 1, c.S)),
    'PX', floor((idle - now + 999) / 1000) + padding)
end

-- buckets: c = {bucket = true, t (tat), e (epoch), i (interval), l (limit)}

local function loadBucket(raw)
  if not raw or #raw ~= BUCKET_BYTES or string.byte(raw, 1) ~= 98 then
    return nil
  end
  local _, t, e, i, l = sunpack(BUCKET, raw)
  return {bucket = true, t = t, e = e, i = i, l = l}
end

local function saveBucket(key, c)
  if c.t <= now then
    redis.call('DEL', key) -- full: holds nothing
    return
  end
  redis.call('SET', key, spack(BUCKET, 'b', c.t, c.e, c.i, c.l), 'PX', floor((c.t - now + 999) / 1000) + padding)
end

-- both ------------------------------------------------------------------------------------------------

local function has(c, permits)
  if c.bucket then
    return max(c.t, now) + min(permits * c.i, CAP) - now <= c.l * c.i
  end
  return c.sum + permits <= c.l
end

local function remaining(c)
  if c.bucket then
    local left = c.l * c.i - (max(c.t, now) - now)
    return left <= 0 and 0 or floor(left / c.i)
  end
  return max(0, c.l - c.sum)
end

local function reset(c)
  if c.bucket then
    return c.t > now and c.t - now or -1
  end
  return c.sum == 0 and -1 or c.a + (oldest(c) + c.S) * c.s - now
end

-- how long until permits could be spent; requires not has(c, permits)
local function retryAfter(c, permits)
  if c.bucket then
    return max(c.t, now) + min(permits * c.i, CAP) - c.l * c.i - now
  end
  local excess = c.sum + permits - c.l -- permits that must return first, oldest first
  local returned = 0
  for j = oldest(c), c.n do
    returned = returned + c[j % c.S + 1]
    if returned >= excess then
      return c.a + (j + c.S) * c.s - now
    end
  end
  -- more than the count's limit (another request sized it): once empty it takes the caller's size
  return c.a + (c.n + c.S) * c.s - now
end

-- spends, past the limit if need be (debt); returns the receipt
local function spend(c, permits)
  if c.bucket then -- (a full bucket was replaced by a new one, whose epoch is now: when it stops being full)
    c.t = min(max(c.t, now) + min(permits * c.i, CAP), now + CAP)
    return c.e
  end
  local add = min(permits, INT_MAX - c.sum) -- debt saturates, as in process
  local x = c.n % c.S + 1
  c[x] = c[x] + add
  c.sum = c.sum + add
  return c.a + c.n * c.s
end

-- release ---------------------------------------------------------------------------------------------

if ARGV[1] == 'r' then
  local given = 0
  for k = 1, #KEYS do
    local raw = redis.call('GET', KEYS[k])
    local receipt = tonumber(ARGV[2 * k + 2])
    local permits = tonumber(ARGV[2 * k + 3])
    local c = loadBucket(raw)
    if c then
      -- from another epoch, or the bucket has been full since: those permits have returned
      if receipt == c.e and c.t > now then
        local before = c.t
        c.t = max(c.t - min(permits * c.i, CAP), now)
        given = given - floor((c.t - before) / c.i) -- rounded up: a permit partly refilled was still out
        saveBucket(KEYS[k], c)
      end
    else
      c = loadWindow(raw)
      local offset = c and receipt - c.a
      -- from before the count was re-anchored, or its step has left the window: returned already
      if c and offset >= 0 and offset % c.s == 0 and offset / c.s <= c.n and offset / c.s > c.n - c.S then
        local x = (offset / c.s) % c.S + 1
        local back = min(permits, c[x])
        if back > 0 then
          c[x] = c[x] - back
          c.sum = c.sum - back
          given = given + back
          saveWindow(KEYS[k], c)
        end
      end
    end
  end
  return given
end

-- acquire ---------------------------------------------------------------------------------------------

local counts = {}
local all = true
for k = 1, #KEYS do
  local code = ARGV[4 * k]
  local algorithm = string.byte(code, 1)
  local limit = tonumber(ARGV[4 * k + 1])
  local size = tonumber(ARGV[4 * k + 2])
  local raw = redis.call('GET', KEYS[k])
  local c
  if algorithm == 98 then -- b: a token bucket
    c = loadBucket(raw)
    if not c or c.t <= now then
      -- missing or full (holds nothing): sized by this request; a new epoch begins
      c = {bucket = true, t = now, e = now, i = size, l = limit}
    end
  else
    c = loadWindow(raw)
    if not c or c.sum == 0 then -- missing or empty: anchored now, sized by this request
      c = newWindow(algorithm == 116 and 9 or 8, limit, size) -- t: a strict window
    end
  end
  c.kind = string.byte(code, 2) -- a 97, s 115, c 99
  c.permits = tonumber(ARGV[4 * k + 3])
  if c.kind == 97 then
    all = all and has(c, c.permits)
  end
  counts[k] = c
end

local reply = {}
for k = 1, #KEYS do
  local c = counts[k]
  local can = c.kind == 99 or has(c, c.permits)
  local state, left, retry, receipt = 2, 0, 0, -1
  if all and can then
    receipt = spend(c, c.permits)
    if c.bucket then
      saveBucket(KEYS[k], c)
    else
      saveWindow(KEYS[k], c)
    end
    state, left = 0, remaining(c)
  elseif can then
    state, left = 1, remaining(c)
  else
    retry = retryAfter(c, c.permits)
  end
  local at = 5 * (k - 1)
  reply[at + 1] = state
  reply[at + 2] = left
  reply[at + 3] = reset(c)
  reply[at + 4] = retry
  reply[at + 5] = receipt
end
return reply
