-- ratelimit: give back permits of one request, each to the step it was spent in (see acquire.lua for
-- the count's fields). A permit whose step has left the window has returned already; a receipt from
-- before the count's anchor names a permit of an earlier life of the count (it emptied and was
-- re-anchored since): both are ignored. A count left empty is deleted: it is as good as missing.
--
-- KEYS[i]    a count a permit was spent from
-- ARGV[1]    now, in microseconds; empty: the server's clock
-- ARGV[1+i]  the receipt of KEYS[i]
-- Reply: the number of permits given back
if redis.replicate_commands then
  redis.replicate_commands()
end

local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[1])
end

local given = 0
for i = 1, #KEYS do
  local v = redis.call('HMGET', KEYS[i], 'a', 's', 'l', 'n', '0', '1', '2', '3', '4', '5', '6', '7')
  if v[1] then
    local a, s, l, n = tonumber(v[1]), tonumber(v[2]), tonumber(v[3]), tonumber(v[4])
    local slot = {}
    for j = 0, 7 do
      slot[j] = tonumber(v[5 + j])
    end
    local t = now
    if t < a + n * s then
      t = a + n * s
    end
    local d = t - a
    local step = (d - math.fmod(d, s)) / s
    local gap = step - n
    if gap >= 8 then
      for j = 0, 7 do
        slot[j] = 0
      end
    elseif gap > 0 then
      for j = n + 1, step do
        slot[j % 8] = 0
      end
    end
    if gap > 0 then
      n = step
    end
    local offset = tonumber(ARGV[1 + i]) - a
    if offset >= 0 and math.fmod(offset, s) == 0 then
      local spent = offset / s
      if spent <= n and spent > n - 8 and slot[spent % 8] > 0 then
        slot[spent % 8] = slot[spent % 8] - 1
        given = given + 1
        local sum = 0
        for j = 0, 7 do
          sum = sum + slot[j]
        end
        if sum == 0 then
          redis.call('DEL', KEYS[i])
        else
          redis.call('HSET', KEYS[i], 'a', a, 's', s, 'l', l, 'n', n,
            '0', slot[0], '1', slot[1], '2', slot[2], '3', slot[3],
            '4', slot[4], '5', slot[5], '6', slot[6], '7', slot[7])
        end
      end
    end
  end
end
return given
