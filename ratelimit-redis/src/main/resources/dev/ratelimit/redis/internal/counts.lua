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
--   both end with the sizing tag of the request that sized them (live values; a value without one has tag 0):
--   a request with another tag re-sizes the count first (see adopt)
-- A count that holds nothing (a window whose permits have all returned, a full bucket) is as good as a
-- missing one: the next request sizes it anew. So a count expires exactly when it comes to hold nothing
-- (its newest permit's return; a bucket's tat), and that loses nothing.
--
-- KEYS[i]  the count of limit i; all in one hash slot (they share the partition's hash tag)
-- ARGV[1]  'a' (acquire), 'r' (release), 'i' (inspect: the count of KEYS[1], spending nothing) or
--          'x' (restart: forget the count of KEYS[1])
-- ARGV[2]  now; empty: the server's clock (a test passes its manual clock's reading instead)
-- ARGV[3]  milliseconds added to every expiry (0 in production; a manual clock stands while real time passes)
-- acquire: ARGV[4i .. 4i+3] for limit i: its code (algorithm s|t|b = sliding|strict|bucket, then kind
--          a|s|c = acquire|shadow|charge, then the sizing tag and the window in seconds: 'sa12345/60'), permit
--          limit, step (windows) or interval (bucket), permits
--          Reply, five integers per limit: state (0 spent, 1 unspent, 2 refused); permits left;
--          microseconds until the oldest permit returns / the bucket is full (-1: nothing spent);
--          microseconds until the request could be allowed (0 unless refused); receipt (-1: none)
-- release: ARGV[2i+2], ARGV[2i+3] for key i: the receipt and the permits to give back
--          Reply: the permits given back
-- inspect: ARGV[4 .. 7] as for acquire. Reply: permits left; reset as for acquire; permits in debt
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
local WINDOW = {[8] = '<c1Bddddddddddddd', [9] = '<c1Bdddddddddddddd'}
local WINDOW_BYTES = {[8] = 2 + 8 * 13, [9] = 2 + 8 * 14}
local UNTAGGED_WINDOW = {[8] = '<c1Bdddddddddddd', [9] = '<c1Bddddddddddddd'}
local BUCKET = '<c1ddddd'
local BUCKET_BYTES = 1 + 8 * 5
local UNTAGGED_BUCKET = '<c1dddd'

-- windows: c = {S, a (anchor), s (step), l (limit), n (newest step), sum, [1 .. S] = slots}

local function newWindow(steps, limit, step, tag)
  local c = {S = steps, a = now, s = step, l = limit, n = 0, sum = 0, tag = tag}
  for x = 1, steps do
    c[x] = 0
  end
  return c
end

-- the window of a stored value (moved to now: steps that left it gave their permits back), or nil
local function loadWindow(raw)
  local S = raw and string.byte(raw, 2)
  if not S or string.byte(raw, 1) ~= 119 or not WINDOW[S] then
    return nil
  end
  local c
  if #raw == WINDOW_BYTES[S] then
    c = {sunpack(WINDOW[S], raw)}
  elseif #raw == WINDOW_BYTES[S] - 8 then
    c = {sunpack(UNTAGGED_WINDOW[S], raw)}
    c[7 + S] = 0
  else
    return nil
  end
  local w = {S = S, a = c[3], s = c[4], l = c[5], n = c[6], sum = 0, tag = c[7 + S]}
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
  local slots = {unpack(c, 1, c.S)}
  slots[c.S + 1] = c.tag
  redis.call('SET', key, spack(WINDOW[c.S], 'w', c.S, c.a, c.s, c.l, c.n, unpack(slots, 1, c.S + 1)),
    'PX', floor((idle - now + 999) / 1000) + padding)
end

-- buckets: c = {bucket = true, t (tat), e (epoch), i (interval), l (limit)}

local function loadBucket(raw)
  if not raw or string.byte(raw, 1) ~= 98 then
    return nil
  end
  if #raw == BUCKET_BYTES then
    local _, t, e, i, l, tag = sunpack(BUCKET, raw)
    return {bucket = true, t = t, e = e, i = i, l = l, tag = tag}
  elseif #raw == BUCKET_BYTES - 8 then
    local _, t, e, i, l = sunpack(UNTAGGED_BUCKET, raw)
    return {bucket = true, t = t, e = e, i = i, l = l, tag = 0}
  end
  return nil
end

local function saveBucket(key, c)
  if c.t <= now then
    redis.call('DEL', key) -- full: holds nothing
    return
  end
  redis.call('SET', key, spack(BUCKET, 'b', c.t, c.e, c.i, c.l, c.tag), 'PX', floor((c.t - now + 999) / 1000) + padding)
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

-- the count of KEYS[k] as a request of limit k finds it: re-sized first when the request's sizing tag is another
-- (the same window: the new limit, permits spent kept; another window or algorithm: afresh), then sized by the
-- request if it holds nothing
local function load(k)
  local code = ARGV[4 * k]
  local algorithm = string.byte(code, 1)
  local tag, window = string.match(code, '^..(%-?%d*)/?(%d*)$')
  tag = tonumber(tag) or 0
  window = tonumber(window) or 0
  local limit = tonumber(ARGV[4 * k + 1])
  local size = tonumber(ARGV[4 * k + 2])
  local raw = redis.call('GET', KEYS[k])
  local c
  if algorithm == 98 then -- b: a token bucket
    c = loadBucket(raw)
    if c and c.tag ~= tag and c.t > now and not (c.l == limit and c.i == size) then
      -- another limit over the same window keeps the share of the capacity out (as BucketCount.adopt)
      local out = c.t - now
      local b = {bucket = true, t = now, e = now, i = size, l = limit, tag = tag}
      if floor((window * 1000000 + c.l - 1) / c.l) == c.i then
        b.t = now + min(floor(out / c.i) * size + floor((out % c.i) * size / c.i), CAP)
      end
      c = b
    end
    if not c or c.t <= now then
      -- missing or full (holds nothing): sized by this request; a new epoch begins
      c = {bucket = true, t = now, e = now, i = size, l = limit}
    end
  else
    c = loadWindow(raw)
    if c and c.tag ~= tag then
      if c.S ~= (algorithm == 116 and 9 or 8) or c.s ~= size then
        c = nil -- another window: its steps mean nothing in the new one
      else
        c.l = limit
      end
    end
    if not c or c.sum == 0 then -- missing or empty: anchored now, sized by this request
      c = newWindow(algorithm == 116 and 9 or 8, limit, size, tag) -- t: a strict window
    end
  end
  c.tag = tag
  c.kind = string.byte(code, 2) -- a 97, s 115, c 99
  return c
end

if ARGV[1] == 'x' then
  redis.call('DEL', KEYS[1])
  return 0
end

if ARGV[1] == 'i' then
  local c = load(1)
  local debt
  if c.bucket then
    local over = c.t - now - c.l * c.i
    debt = over > 0 and floor((over + c.i - 1) / c.i) or 0
  else
    debt = max(0, c.sum - c.l)
  end
  return {remaining(c), reset(c), debt}
end

local counts = {}
local all = true
for k = 1, #KEYS do
  local c = load(k)
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
