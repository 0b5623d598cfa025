-- Admission gate: seed a SKU's counters, once.
--
-- KEYS[1]   counters of the SKU (hash)   stockade:{<t>}:sku:<skuId>
-- ARGV[1]   initial stock, an integer from 0 to 2^53-1
-- ARGV[2]   per-user limit, an integer >= 0, or -1 for no limit
-- ARGV[3]   buckets: the partition indices of the SKU's buckets, home first ("7", "3 9 14"); every
--           bucket's counters record it, and the caller seeds each bucket with its share of the
--           stock, the home bucket last
-- ARGV[4]   optional, with ARGV[5] and ARGV[6]: the sale's opensAt (epoch ms, or "-" for none),
-- ARGV[5]   closesAt (epoch ms, or "-"), and
-- ARGV[6]   the version of the schedule (its event's sequence number in the SKU's stream), written
--           with the counters (fields opensAt, closesAt, scheduleVersion, as sale.lua writes them),
--           so that no reservation is admitted between the seeding and the schedule
-- ARGV[7]   optional, after ARGV[6]: the pre-queue in ms before opensAt (0: none; field prequeue)
--
-- Returns:
--   {1}                            SEEDED: the counters did not exist and now do
--   {0, available, reserved, sold} EXISTING: the counters were already there; nothing changed
--   error "ERR_ARGUMENT <reason>"  malformed call; nothing written
--   error "ERR_TYPE <key>"         the key holds the wrong Redis type; nothing written

--#include parts/epoch.lua

--#include parts/integer.lua

if #KEYS ~= 1 or (#ARGV ~= 3 and #ARGV ~= 6 and #ARGV ~= 7) then
  return redis.error_reply('ERR_ARGUMENT expected 1 key and 3, 6 or 7 arguments')
end
local window = {}
if #ARGV >= 6 then
  local opens = ARGV[4] == '-' and '-' or integer(ARGV[4], 0)
  local closes = ARGV[5] == '-' and '-' or integer(ARGV[5], 0)
  local version = integer(ARGV[6], 0)
  if opens == nil then
    return redis.error_reply('ERR_ARGUMENT opensAt')
  end
  if closes == nil or (opens ~= '-' and closes ~= '-' and closes <= opens) then
    return redis.error_reply('ERR_ARGUMENT closesAt')
  end
  if version == nil then
    return redis.error_reply('ERR_ARGUMENT scheduleVersion')
  end
  -- The arguments' own digits: a Lua number of 13 digits would be written as 1.7e+12.
  if opens ~= '-' then
    table.insert(window, 'opensAt')
    table.insert(window, ARGV[4])
  end
  if closes ~= '-' then
    table.insert(window, 'closesAt')
    table.insert(window, ARGV[5])
  end
  table.insert(window, 'scheduleVersion')
  table.insert(window, ARGV[6])
  if #ARGV == 7 then
    local prequeue = integer(ARGV[7], 0)
    if prequeue == nil or (prequeue > 0 and opens == '-') then
      return redis.error_reply('ERR_ARGUMENT prequeue')
    end
    if prequeue > 0 then
      table.insert(window, 'prequeue')
      table.insert(window, ARGV[7])
    end
  end
end
local initial = integer(ARGV[1], 0)
local limit = integer(ARGV[2], -1)
local buckets = ARGV[3]
if buckets == nil or #buckets > 5120 or string.find(buckets, '  ', 1, true)
    or not (string.match(buckets, '^%d+$') or string.match(buckets, '^%d[%d ]*%d$')) then
  return redis.error_reply('ERR_ARGUMENT buckets')
end
if initial == nil then
  return redis.error_reply('ERR_ARGUMENT initial stock')
end
if limit == nil then
  return redis.error_reply('ERR_ARGUMENT limit')
end
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'hash' then
  local counters = redis.call('HMGET', KEYS[1], 'available', 'reserved', 'sold')
  return { 0, tonumber(counters[1]), tonumber(counters[2]), tonumber(counters[3]) }
end
if kind ~= 'none' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[1])
end
redis.call('HSET', KEYS[1], 'available', initial, 'reserved', 0, 'sold', 0, 'limit', limit,
  'buckets', buckets, unpack(window))
return { 1 }
