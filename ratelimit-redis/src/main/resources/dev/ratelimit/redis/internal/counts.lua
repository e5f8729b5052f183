-- ratelimit: the counts of one partition, with exactly the semantics of the in-process store
-- (dev.ratelimit.core.store.WindowCount and BucketCount): one call decides all the limits of a request (or the
-- part of it whose counts share a Redis Cluster slot), all or nothing, reserving permits for the limits that may
-- wait (SPEC 20); or gives back what a decision spent; or, for the admin API (SPEC 19), reads one count
-- without spending or forgets it.
--
-- One call is run(KEYS, ARGV). The last line calls it, so the file is a script for EVAL/EVALSHA; without that
-- line it is a Redis Function library (Redis 7) whose function is run (RedisScript.functionLibrary), made once
-- when the library loads instead of on every call. So nothing outside run reads a global or calls Redis (a
-- library may do neither while it loads), and what a call is about (now, padding, channel) is set by run.
--
-- Times are in microseconds, integers well inside a double's 2^53 (so a % b and floor(a / b) are exact).
-- A count is one string value, packed with struct (little-endian doubles):
--   window  'w', S (a byte: 8 sliding, 9 strict: the steps a permit stays out), anchor, step, limit, newest,
--           then S slots: the permits spent in step j at slot j % S, for newest - S < j <= newest; a permit
--           of step j returns at anchor + (j + S) * step;
--           then the sizing tag, unless it is 0;
--           then, only while callers wait, a (step, permits) pair for each step after newest with permits
--           reserved in it, in order of step (the ring cannot hold them: they may lie more than S steps ahead).
--           The length tells the two apart: past the slots, a multiple of 16 bytes is pairs alone (tag 0), 8
--           bytes more is the tag, then the pairs.
--   bucket  'b', tat, epoch, interval, limit (GCRA: full again at tat; epoch: when it last stopped being full;
--           tat is also the queue of reservations: a caller that waits moves it past its own instant);
--           then the sizing tag, unless it is 0
--   The sizing tag (live values, SPEC 19) is that of the request that sized the count (a value without one
--   has tag 0): a request with another tag re-sizes the count first (see load).
--   A count of tag 0 without reservations is byte for byte what the versions before live values and waiting
--   wrote, so those versions and this one read each other's counts during a rolling deploy (but an old one
--   counts a value that holds reservations or another tag afresh: a wait, or a live value, should be given to
--   a limit once every instance runs this version)
-- A count that holds nothing (a window whose permits have all returned and that has nothing reserved, a full
-- bucket) is as good as a missing one: the next request sizes it anew. So a count expires exactly when it
-- comes to hold nothing (the return of its last permit, reserved ones included; a bucket's tat), and that
-- loses nothing.
--
-- Announcements (refusals answered by each instance until a give-back or restart): a count that refuses an acquire that may not wait is flagged (the key KEYS[i] .. '!',
-- in the same slot, expiring with the refusal's retry-after); a give-back or a restart that finds the flag clears it
-- and publishes the count's key on the channel, so that every instance forgets the refusal it may remember. Nothing
-- is flagged or published when the channel is empty.
--
-- KEYS[i]  the count of limit i; all in one hash slot
-- ARGV[1]  'a' (acquire), 'd' (decide only: as acquire, but spend nothing), 'r' (release), 'i' (inspect: the
--          count of KEYS[1] as a request would find it, spending and writing nothing) or 'x' (restart: forget
--          the count of KEYS[1])
-- ARGV[2]  now; empty: the server's clock (a test passes its manual clock's reading instead)
-- ARGV[3]  milliseconds added to every expiry (0 in production; a manual clock stands while real time passes)
-- ARGV[4]  the channel of announcements; empty: none
-- acquire: ARGV[5]  microseconds from now before which the call does not go (0; more for the second part of a
--                   request split over two cluster slots: it goes at the first part's instant, or later)
--          ARGV[6i .. 6i+5] for limit i: its code (algorithm s|t|b = sliding|strict|bucket, then kind
--          a|s|c = acquire|shadow|charge, then the sizing tag and the window in seconds: 'sa12345/60'; the
--          two letters alone: tag 0), permit limit, step (windows) or interval (bucket), permits, the
--          longest it may wait in microseconds (0: it may not), and a receipt of these permits to give back
--          before deciding (empty: none; a split request moving or taking back what it spent)
--          Reply, six integers per limit: state (0 spent, 1 unspent, 2 refused); permits left;
--          microseconds until the oldest permit returns / the bucket is full (-1: nothing spent);
--          microseconds until the request could be allowed (0 unless refused); receipt (-1: none);
--          microseconds until the call goes (0 unless its permits were reserved).
--          Or, when every limit spent at once (the common call: state 0, retry-after 0, no wait), three integers
--          per limit: permits left, reset, receipt. The length tells the two apart (3 or 6 times the keys); each
--          integer a reply holds costs Redis time to convert
-- release: ARGV[2i+3], ARGV[2i+4] for key i: the receipt and the permits to give back
--          Reply: the permits given back
-- inspect: ARGV[5 .. 11] as for acquire, of one limit (permits 1, no wait, no receipt)
--          Reply: permits left; reset as for acquire; permits in debt (spent past the limit by a charge)
-- restart: no more arguments; announced whether the count refused or not. Reply: 0
-- the globals it uses, read by the first call (a function library may not read globals while it loads)
local floor, max, min, spack, sunpack, sbyte, tonum, unpackn, sformat
-- what the current call is about, set by each call (run)
local now, padding, channel
local INT_MAX = 2147483647
local CAP = 4503599627370496 -- 2^52 us (142 years): how far past now a bucket in debt may go
local WINDOW = {[8] = '<c1Bdddddddddddd', [9] = '<c1Bddddddddddddd'} -- untagged: tag 0
local WINDOW_BYTES = {[8] = 2 + 8 * 12, [9] = 2 + 8 * 13}
local HEAD = '<dddd' -- a window's anchor, step, limit, newest, from its third byte
local SLOTS = {[8] = '<dddddddd', [9] = '<ddddddddd'} -- its slots, from its 35th byte
local TAG = '<d'
local TAG_BYTES = 8
local RESERVED = '<dd'
local RESERVED_BYTES = 16
local BUCKET = '<c1dddd' -- untagged: tag 0
local BUCKET_BYTES = 1 + 8 * 4
local TAGGED_BUCKET = '<c1ddddd'
local NONE = {} -- the reservations of a window that holds none: never written to (spendAt makes a window its own)

-- an expiry of micros from now, for SET's PX: whole milliseconds rounded up, plus the padding, as text (Redis writes a
-- number argument with a %.17g of its own, several times slower than the SET)
local function px(micros)
  return sformat('%d', floor((micros + 999) / 1000) + padding)
end

-- windows: c = {S, a (anchor), s (step), l (limit), n (newest step), sum, [1 .. S] = slots,
--               r (steps reserved ahead of the clock), rs[1 .. r] (those steps, ascending), rp[1 .. r] (permits)}

local function newWindow(steps, limit, step, tag)
  -- every field a count gets, in the constructor: the table is made once, at its size
  if steps == 8 then
    return {0, 0, 0, 0, 0, 0, 0, 0, S = 8, a = now, s = step, l = limit, n = 0, sum = 0, tag = tag, r = 0, rs = NONE,
            rp = NONE, kind = 0, permits = 0, wait = 0, changed = false}
  end
  return {0, 0, 0, 0, 0, 0, 0, 0, 0, S = 9, a = now, s = step, l = limit, n = 0, sum = 0, tag = tag, r = 0, rs = NONE,
          rp = NONE, kind = 0, permits = 0, wait = 0, changed = false}
end

-- the window of a stored value (moved to now: steps that left it gave their permits back, reserved steps that the
-- clock reached joined it), or nil
local function loadWindow(raw)
  local S = raw and sbyte(raw, 2)
  local bytes = S and WINDOW_BYTES[S]
  if not bytes or sbyte(raw, 1) ~= 119 or #raw < bytes then
    return nil
  end
  local tagged = (#raw - bytes) % RESERVED_BYTES
  if tagged ~= 0 and tagged ~= TAG_BYTES then
    return nil
  end
  local r = (#raw - bytes - tagged) / RESERVED_BYTES
  local a, s, l, n = sunpack(HEAD, raw, 3)
  local w = {S = S, a = a, s = s, l = l, n = n, sum = 0, tag = 0, r = r, rs = NONE, rp = NONE, kind = 0, permits = 0,
             wait = 0, changed = false, sunpack(SLOTS[S], raw, 35)}
  w[S + 1] = nil -- where unpacking ended
  local sum = 0
  for x = 1, S do
    sum = sum + w[x]
  end
  w.sum = sum
  local at = bytes + 1
  if tagged ~= 0 then
    w.tag, at = sunpack(TAG, raw, at)
  end
  if r > 0 then
    w.rs, w.rp = {}, {}
    for i = 1, r do
      w.rs[i], w.rp[i], at = sunpack(RESERVED, raw, at)
    end
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
    -- reserved steps the clock has reached are spent now; those that have left the window again, returned
    local kept = 0
    for i = 1, w.r do
      local j, permits = w.rs[i], w.rp[i]
      if j > current then
        kept = kept + 1
        w.rs[kept], w.rp[kept] = j, permits
      elseif j > current - S then
        w[j % S + 1] = permits
        w.sum = w.sum + permits
      end
    end
    for i = kept + 1, w.r do
      w.rs[i], w.rp[i] = nil, nil
    end
    w.r = kept
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
  local last -- the step of the last permit out: it returns last
  if c.r > 0 then
    last = c.rs[c.r]
  else
    for j = c.n, max(0, c.n - c.S + 1), -1 do
      if c[j % c.S + 1] > 0 then
        last = j
        break
      end
    end
  end
  if not last then
    redis.call('DEL', key)
    return
  end
  local value = spack(WINDOW[c.S], 'w', c.S, c.a, c.s, c.l, c.n, unpackn(c, 1, c.S))
  if c.tag ~= 0 or c.r > 0 then
    local parts = {value}
    if c.tag ~= 0 then
      parts[2] = spack(TAG, c.tag)
    end
    for i = 1, c.r do
      parts[#parts + 1] = spack(RESERVED, c.rs[i], c.rp[i])
    end
    value = table.concat(parts)
  end
  redis.call('SET', key, value, 'PX', px(c.a + (last + c.S) * c.s - now))
end

-- buckets: c = {bucket = true, t (tat), e (epoch), i (interval), l (limit), tag}

local function loadBucket(raw)
  if not raw or sbyte(raw, 1) ~= 98 then
    return nil
  end
  if #raw == BUCKET_BYTES then
    local _, t, e, i, l = sunpack(BUCKET, raw)
    return {bucket = true, t = t, e = e, i = i, l = l, tag = 0, kind = 0, permits = 0, wait = 0, changed = false}
  elseif #raw == BUCKET_BYTES + TAG_BYTES then
    local _, t, e, i, l, tag = sunpack(TAGGED_BUCKET, raw)
    return {bucket = true, t = t, e = e, i = i, l = l, tag = tag, kind = 0, permits = 0, wait = 0, changed = false}
  end
  return nil
end

local function saveBucket(key, c)
  if c.t <= now then
    redis.call('DEL', key) -- full: holds nothing
    return
  end
  local value
  if c.tag ~= 0 then
    value = spack(TAGGED_BUCKET, 'b', c.t, c.e, c.i, c.l, c.tag)
  else
    value = spack(BUCKET, 'b', c.t, c.e, c.i, c.l)
  end
  redis.call('SET', key, value, 'PX', px(c.t - now))
end

local function save(key, c)
  if c.bucket then
    saveBucket(key, c)
  else
    saveWindow(key, c)
  end
end

-- both ------------------------------------------------------------------------------------------------

local function has(c, permits)
  if c.bucket then
    return max(c.t, now) + min(permits * c.i, CAP) - now <= c.l * c.i
  end
  return c.r == 0 and c.sum + permits <= c.l -- while callers wait for later steps, nobody goes first
end

local function remaining(c)
  if c.bucket then
    local left = c.l * c.i - (max(c.t, now) - now)
    return left <= 0 and 0 or floor(left / c.i)
  end
  return c.r > 0 and 0 or max(0, c.l - c.sum)
end

local function reset(c)
  if c.bucket then
    return c.t > now and c.t - now or -1
  end
  if c.sum > 0 then
    return c.a + (oldest(c) + c.S) * c.s - now
  end
  return c.r > 0 and c.a + (c.rs[1] + c.S) * c.s - now or -1
end

-- the earliest instant, >= now, at which permits can be spent: now when has(c, permits), else later, behind
-- every permit reserved already (callers that wait go first come, first served)
local function grantAt(c, permits)
  if c.bucket then
    local at = max(c.t, now) + min(permits * c.i, CAP) - c.l * c.i
    return at > now and at or now
  end
  local S, k = c.S, c.n
  local m = c.r > 0 and c.rs[c.r] or k -- no sooner than the last reserved step
  if permits > c.l then
    -- more than the count's limit (another request sized it): once empty it takes the caller's size
    return c.a + (m + S) * c.s
  end
  -- the permits out in the window that ends with step m: the ring's steps (m - S, k], the reserved ones (k, m]
  local out = 0
  for j = max(0, m - S + 1, k - S + 1), k do
    out = out + c[j % S + 1]
  end
  for i = 1, c.r do
    if c.rs[i] > m - S then
      out = out + c.rp[i]
    end
  end
  local next = 1 -- the first reservation that may still be in the window
  while out + permits > c.l do
    local leaving = m - S + 1 -- the step that leaves the window as it moves on by one
    if leaving <= k then
      if leaving >= 0 and leaving > k - S then
        out = out - c[leaving % S + 1]
      end
      m = m + 1
    else
      -- only reservations are left in the window (out > 0, so one is): it moves on to where the next one leaves
      while c.rs[next] < leaving do
        next = next + 1
      end
      out = out - c.rp[next]
      m = c.rs[next] + S
    end
  end
  return m == k and now or c.a + m * c.s
end

-- spends, past the limit if need be (debt); returns the receipt
local function spend(c, permits)
  if c.bucket then -- (a full bucket was replaced by a new one, whose epoch is now: when it stops being full)
    c.t = min(max(c.t, now) + min(permits * c.i, CAP), now + CAP)
    return c.e
  end
  if c.r > 0 then
    -- a charge while callers wait for later steps: after them, so that no reserved step passes its limit
    c.rp[c.r] = min(c.rp[c.r] + permits, INT_MAX)
    return c.a + c.rs[c.r] * c.s
  end
  local add = min(permits, INT_MAX - c.sum) -- debt saturates, as in process
  local x = c.n % c.S + 1
  c[x] = c[x] + add
  c.sum = c.sum + add
  return c.a + c.n * c.s
end

-- spends at the instant at (>= what grantAt said) where the caller goes: a reservation; returns the receipt
local function spendAt(c, at, permits)
  if c.bucket then
    -- GCRA at the instant the caller goes: the bucket refills until then, and tat is the queue behind it
    c.t = min(max(c.t, at) + min(permits * c.i, CAP), now + CAP)
    return c.e
  end
  local j = floor((at - c.a) / c.s)
  if j <= c.n then
    return spend(c, permits)
  end
  if c.r > 0 and c.rs[c.r] == j then
    c.rp[c.r] = min(c.rp[c.r] + permits, INT_MAX)
  else -- callers go first come, first served: a reservation lands in the last reserved step or after it
    if c.r == 0 then
      c.rs, c.rp = {}, {}
    end
    c.r = c.r + 1
    c.rs[c.r], c.rp[c.r] = j, min(permits, INT_MAX)
  end
  return c.a + j * c.s
end

-- gives back permits spent with receipt, unless they have returned already; returns how many came back
local function giveBack(c, receipt, permits)
  if c.bucket then
    -- from another epoch, or the bucket has been full since: those permits have returned
    if receipt ~= c.e or c.t <= now then
      return 0
    end
    local before = c.t
    c.t = max(c.t - min(permits * c.i, CAP), now)
    return -floor((c.t - before) / c.i) -- rounded up: a permit partly refilled was still out
  end
  local offset = receipt - c.a
  if offset < 0 or offset % c.s ~= 0 then
    return 0 -- from before the count was re-anchored: returned already
  end
  local j = offset / c.s
  if j > c.n then -- a reservation still ahead of the clock
    for i = 1, c.r do
      if c.rs[i] == j then
        local back = min(permits, c.rp[i])
        c.rp[i] = c.rp[i] - back
        if c.rp[i] == 0 then
          table.remove(c.rs, i)
          table.remove(c.rp, i)
          c.r = c.r - 1
        end
        return back
      end
    end
    return 0
  end
  if j <= c.n - c.S then
    return 0 -- its step has left the window: returned already
  end
  local x = j % c.S + 1
  local back = min(permits, c[x])
  c[x] = c[x] - back
  c.sum = c.sum - back
  return back
end

-- announcements ---------------------------------------------------------------------------------------

-- the count of key refused an acquire that may not wait, for retry microseconds
local function flag(key, retry)
  if channel ~= '' then
    redis.call('SET', key .. '!', '1', 'PX', px(retry))
  end
end

-- the count of key gained permits: announced when it refused since its last announcement
local function announce(key)
  if channel ~= '' and redis.call('DEL', key .. '!') == 1 then
    redis.call('PUBLISH', channel, key)
  end
end

-- acquire ---------------------------------------------------------------------------------------------

local function newBucket(size, limit)
  return {bucket = true, t = now, e = now, i = size, l = limit, tag = 0, kind = 0, permits = 0, wait = 0, changed = false}
end

-- the count of KEYS[k] as a request of limit k finds it: first the receipt of ARGV[6k+5] given back (to the
-- count as it was sized, which issued it); then re-sized when the request's sizing tag is another (as
-- WindowCount and BucketCount.adopt: the same window, the new limit with the permits spent kept, and a
-- window's reservations kept as they are, permits promised already; another window or algorithm, afresh);
-- then sized by the request if it holds nothing. c.changed: the give-back changed what is stored. raws: values of
-- the keys read already in this call (false: missing), or nil
local function load(KEYS, ARGV, k, raws)
  local code = ARGV[6 * k]
  local algorithm = sbyte(code, 1)
  local tag, window = 0, 0
  if #code > 2 then
    local t, w = string.match(code, '^..(%-?%d*)/?(%d*)$')
    tag = tonum(t) or 0
    window = tonum(w) or 0
  end
  local limit = tonum(ARGV[6 * k + 1])
  local size = tonum(ARGV[6 * k + 2])
  local permits = tonum(ARGV[6 * k + 3])
  local receipt = ARGV[6 * k + 5]
  local raw
  if raws and raws[k] ~= nil then
    raw = raws[k]
  else
    raw = redis.call('GET', KEYS[k])
  end
  local c
  if algorithm == 98 then -- b: a token bucket
    c = loadBucket(raw)
  else
    c = loadWindow(raw)
  end
  local changed = false
  if c and receipt ~= '' then
    changed = giveBack(c, tonum(receipt), permits) > 0
  end
  if algorithm == 98 then
    if c and c.tag ~= tag and c.t > now and not (c.l == limit and c.i == size) then
      -- another limit over the same window keeps the share of the capacity out (as BucketCount.adopt)
      local out = c.t - now
      local b = newBucket(size, limit)
      if floor((window * 1000000 + c.l - 1) / c.l) == c.i then
        b.t = now + min(floor(out / c.i) * size + floor((out % c.i) * size / c.i), CAP)
      end
      c = b
    end
    if not c or c.t <= now then
      -- missing or full (holds nothing): sized by this request; a new epoch begins
      c = newBucket(size, limit)
    end
  else
    if c and c.tag ~= tag then
      if c.S ~= (algorithm == 116 and 9 or 8) or c.s ~= size then
        c = nil -- another window: its steps (and reservations) mean nothing in the new one
      else
        c.l = limit -- reservations stay as they are: permits promised already
      end
    end
    if not c or (c.sum == 0 and c.r == 0) then -- missing or empty: anchored now, sized by this request
      c = newWindow(algorithm == 116 and 9 or 8, limit, size, tag) -- t: a strict window
    end
  end
  c.tag = tag
  c.kind = sbyte(code, 2) -- a 97, s 115, c 99
  c.permits = permits
  c.wait = tonum(ARGV[6 * k + 4])
  c.changed = changed
  return c
end

-- the common call, decided without the machinery above: window limits (sliding or strict) that acquire and may
-- not wait, no receipt to give back, no sizing tag, each count found missing or stored without tag or
-- reservations, and all allowed. Exactly what the general path decides then (each count as load finds it, has,
-- spend, save, the reply), with one table per count (the stored value's fields) instead of a count's. For anything
-- else (a refusal included) nil, with nothing written, and the values it read (raws[k]: false when missing), which
-- the general path then decides on without reading them again
local function acquireWindows(KEYS, ARGV)
  if ARGV[5] ~= '0' then
    return nil
  end
  local n = #KEYS
  for k = 1, n do
    local i = 6 * k
    local code = ARGV[i]
    if #code ~= 2 or sbyte(code, 1) == 98 or sbyte(code, 2) ~= 97 or ARGV[i + 4] ~= '0' or ARGV[i + 5] ~= '' then
      return nil
    end
  end
  local counts = {}
  local raws = n > 1 and {} or nil -- one value read: made into a table only when the general path needs it
  for k = 1, n do
    local i = 6 * k
    local algorithm = sbyte(ARGV[i], 1)
    local raw = redis.call('GET', KEYS[k])
    if raws then
      raws[k] = raw
    end
    -- v: 'w', S, anchor, step, limit, newest, S slots (at 7 .. S + 6), then the sum and the permits asked
    local v
    local S
    local sum = 0
    if raw then
      S = sbyte(raw, 2)
      local bytes = WINDOW_BYTES[S]
      if not bytes or #raw ~= bytes or sbyte(raw, 1) ~= 119 then
        return nil, raws or {raw} -- tagged, holding reservations, a bucket, or not a count
      end
      v = {sunpack(WINDOW[S], raw)}
      local a, s, last = v[3], v[4], v[6]
      local elapsed = now - a
      if elapsed >= (last + 1) * s then -- a step has passed since the newest
        local current = floor(elapsed / s)
        if current - last >= S then
          for x = 7, S + 6 do
            v[x] = 0
          end
        else
          for j = last + 1, current do
            v[j % S + 7] = 0
          end
        end
        v[6] = current
      end
      for x = 7, S + 6 do
        sum = sum + v[x]
      end
    end
    if sum == 0 then -- missing or empty: anchored now, sized by this request
      S = algorithm == 116 and 9 or 8
      v = {'w', S, now, tonum(ARGV[i + 2]), tonum(ARGV[i + 1]), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
    end
    local permits = tonum(ARGV[i + 3])
    if sum + permits > v[5] then
      return nil, raws or {raw} -- refused: the general path finds when it could go, and flags the count
    end
    v[S + 7], v[S + 8] = sum, permits
    counts[k] = v
  end
  local reply = n == 1 and {0, 0, 0} or {}
  for k = 1, n do
    local v = counts[k]
    local S, a, s, l, newest, sum = v[2], v[3], v[4], v[5], v[6], v[v[2] + 7]
    local add = min(v[S + 8], INT_MAX - sum) -- debt saturates, as in process
    local x = newest % S + 7
    v[x] = v[x] + add
    sum = sum + add
    local oldestStep, last
    for j = max(0, newest - S + 1), newest do
      if v[j % S + 7] > 0 then
        oldestStep = oldestStep or j
        last = j
      end
    end
    if not last then
      redis.call('DEL', KEYS[k])
    else
      redis.call('SET', KEYS[k], spack(WINDOW[S], 'w', S, a, s, l, newest, unpackn(v, 7, S + 6)),
          'PX', px(a + (last + S) * s - now))
    end
    local at = 3 * (k - 1) -- the short reply: spent, no retry-after, no wait
    reply[at + 1] = max(0, l - sum)
    reply[at + 2] = oldestStep and a + (oldestStep + S) * s - now or -1
    reply[at + 3] = a + newest * s
  end
  return reply
end

-- one call ---------------------------------------------------------------------------------------------

local function run(KEYS, ARGV)
  if not spack then
    floor, max, min = math.floor, math.max, math.min
    spack, sunpack = struct.pack, struct.unpack
    sbyte, tonum, unpackn, sformat = string.byte, tonumber, unpack, string.format
  end
  if ARGV[2] == '' then
    if redis.replicate_commands then
      redis.replicate_commands() -- Redis < 5: TIME before a write needs effects replication
    end
    local t = redis.call('TIME')
    now = tonum(t[1]) * 1000000 + tonum(t[2])
  else
    now = tonum(ARGV[2])
  end
  padding = tonum(ARGV[3])
  channel = ARGV[4]
  local mode = ARGV[1]

  local raws -- the values the short path read, when it leaves the call to the general one
  if mode == 'a' then
    local reply
    reply, raws = acquireWindows(KEYS, ARGV)
    if reply then
      return reply
    end
  end

  if mode == 'r' then
    local given = 0
    for k = 1, #KEYS do
      local raw = redis.call('GET', KEYS[k])
      local c = loadBucket(raw) or loadWindow(raw)
      if c then
        local back = giveBack(c, tonum(ARGV[2 * k + 3]), tonum(ARGV[2 * k + 4]))
        if back > 0 then
          given = given + back
          save(KEYS[k], c)
          announce(KEYS[k])
        end
      end
    end
    return given
  end

  if mode == 'x' then
    redis.call('DEL', KEYS[1])
    if channel ~= '' then -- every restart is announced, flagged or not: slices of the count drop
      redis.call('DEL', KEYS[1] .. '!')
      redis.call('PUBLISH', channel, KEYS[1])
    end
    return 0
  end

  if mode == 'i' then
    local c = load(KEYS, ARGV, 1)
    local debt
    if c.bucket then
      local over = c.t - now - c.l * c.i
      debt = over > 0 and floor((over + c.i - 1) / c.i) or 0
    else
      debt = max(0, c.sum - c.l)
    end
    return {remaining(c), reset(c), debt}
  end

  local n = #KEYS
  local counts = {}
  local all = mode == 'a'
  local goAt = now + tonum(ARGV[5]) -- when the call goes: the latest grant of its limits that wait
  for k = 1, n do
    local c = load(KEYS, ARGV, k, raws)
    if c.kind == 97 and c.wait == 0 then
      all = all and has(c, c.permits)
    elseif c.kind == 97 then
      local grant = grantAt(c, c.permits)
      all = all and grant - now <= c.wait
      goAt = max(goAt, grant)
    end
    counts[k] = c
  end

  local reply = n == 1 and {0, 0, 0, 0, 0, 0} or {}
  for k = 1, n do
    local c = counts[k]
    local can = c.kind == 99 or has(c, c.permits)
    local state, left, retry, receipt, wait = 2, 0, 0, -1, 0
    if all and c.kind == 97 and goAt > now then
      -- every enforced limit spends where the call goes, in the step (at the instant) of the latest grant
      receipt = spendAt(c, goAt, c.permits)
      state, left, wait = 0, remaining(c), goAt - now
    elseif all and can then
      receipt = spend(c, c.permits)
      state, left = 0, remaining(c)
    elseif can or (c.kind == 97 and c.wait > 0 and grantAt(c, c.permits) - now <= c.wait) then
      state, left = 1, remaining(c)
    else
      retry = grantAt(c, c.permits) - now
      if c.kind == 97 and c.wait == 0 then
        flag(KEYS[k], retry)
      end
    end
    if state == 0 or c.changed then
      save(KEYS[k], c)
    end
    if c.changed then
      announce(KEYS[k]) -- a split request moved its permits: the count may hold more now
    end
    local at = 6 * (k - 1)
    reply[at + 1] = state
    reply[at + 2] = left
    reply[at + 3] = reset(c)
    reply[at + 4] = retry
    reply[at + 5] = receipt
    reply[at + 6] = wait
  end
  return reply
end

return run(KEYS, ARGV)
