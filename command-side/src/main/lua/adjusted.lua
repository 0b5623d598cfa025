-- Admission gate: settle a pending adjustment take (adjust.lua) in one bucket: its event was
-- stored (recorded), or it never will be (give the units back).
--
-- KEYS[1]   counters of the SKU (hash)                   stockade:{<t>}:sku:<skuId>
-- KEYS[2]   adjustments applied to it (hash)             stockade:{<t>}:sku:<skuId>:adjustments
-- KEYS[3]   adjustment takes not yet known to be recorded (sorted set)
--           stockade:{<t>}:gate:adjustments-pending
-- ARGV[1]   adjustmentId
-- ARGV[2]   recorded: the take's event is stored, the take stays (state RECORDED, off the pending
--           list); giveback: it is not and will not be, the units go back to available and the
--           id is forgotten here (a retry of the adjustment takes afresh)
--
-- Returns:
--   {1, available}   SETTLED: done now; available after
--   {2, available}   ALREADY: recorded before (recorded), or no take of that id here (giveback:
--                    given back before, or never taken); nothing changed
--   {3}              RECORDED: giveback of a take whose event is stored; nothing changed
--   {4}              UNKNOWN: recorded of an id this bucket has no take of; nothing changed
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>": malformed call; nothing written

--#include parts/epoch.lua

--#include parts/valid_id.lua

if #KEYS ~= 3 or #ARGV ~= 2 then
  return redis.error_reply('ERR_ARGUMENT expected 3 keys and 2 arguments')
end
local sku = string.match(KEYS[1], ':sku:([^:]+)$')
if sku == nil then
  return redis.error_reply('ERR_ARGUMENT counters key')
end
local id = ARGV[1]
if not valid_id(id) then
  return redis.error_reply('ERR_ARGUMENT adjustmentId')
end
local action = ARGV[2]
if action ~= 'recorded' and action ~= 'giveback' then
  return redis.error_reply('ERR_ARGUMENT action')
end
for i = 1, 3 do
  local kind = redis.call('TYPE', KEYS[i])['ok']
  local expected = i == 3 and 'zset' or 'hash'
  if kind ~= expected and kind ~= 'none' then
    return redis.error_reply('ERR_TYPE ' .. KEYS[i])
  end
end

local available = tonumber(redis.call('HGET', KEYS[1], 'available'))
local record = redis.call('HGET', KEYS[2], id)
local units, state
if record then
  units, state = string.match(record, '^%-?%d+ (%d+) (%u+)$')
  if units == nil then
    return redis.error_reply('ERR_TYPE ' .. KEYS[2])
  end
end
if action == 'recorded' then
  if not record then
    return { 4 }
  end
  if state ~= 'PENDING' then
    return { 2, available }
  end
  redis.call('HSET', KEYS[2], id, (string.gsub(record, 'PENDING$', 'RECORDED')))
  redis.call('HDEL', KEYS[2], id .. ':content')
  redis.call('ZREM', KEYS[3], sku .. ' ' .. id)
  return { 1, available }
end
if not record then
  return { 2, available }
end
if state ~= 'PENDING' then
  return { 3 }
end
redis.call('HDEL', KEYS[2], id, id .. ':content')
redis.call('ZREM', KEYS[3], sku .. ' ' .. id)
return { 1, redis.call('HINCRBY', KEYS[1], 'available', tonumber(units)) }
