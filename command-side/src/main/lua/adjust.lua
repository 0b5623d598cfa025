-- Admission gate: adjust a SKU's available stock in one bucket, once per adjustment id.
--
-- A negative adjustment takes units from available only (never from reserved or sold, never below
-- zero) before its event is stored, so the take leaves a record in the same call: the id, its
-- quantity and the units taken, PENDING, listed in the partition's pending adjustments (scored by
-- this Redis's TIME, ms) until the caller marks it recorded once the event is stored, or gives the
-- units back when it is not (adjusted.lua). A positive adjustment is applied after its event is
-- stored, as a replenishment is: it adds its units and is recorded at once, never pending.
-- Adjustments have one id space, of their own, apart from replenishments'.
--
-- KEYS[1]   counters of the SKU (hash)                   stockade:{<t>}:sku:<skuId>
-- KEYS[2]   adjustments applied to it (hash)             stockade:{<t>}:sku:<skuId>:adjustments
--           per adjustment id: "<quantity> <units> <state>": the whole adjustment's quantity
--           (signed), the units taken or added in this bucket, PENDING or RECORDED
-- KEYS[3]   adjustment takes not yet known to be recorded (sorted set)
--           stockade:{<t>}:gate:adjustments-pending
--           members "<skuId> <adjustmentId>", scored by TIME at the take (ms)
-- ARGV[1]   adjustmentId: [A-Za-z0-9._-]{1,64}
-- ARGV[2]   quantity of the whole adjustment: a non-zero integer, -(2^53-1) to 2^53-1
-- ARGV[3]   units to take or add in this bucket: for a positive quantity, the quantity; for a
--           negative one, 1 to -quantity (a SKU in buckets takes its quantity across them)
-- ARGV[4]   exact: take the units or refuse; upto: take as many of them as are available (it
--           may be none); a positive quantity is always exact
-- ARGV[5]   optional: the adjustment's content as the caller will record it (up to 512 bytes),
--           kept with a negative take (field "<adjustmentId>:content" of KEYS[2]) until it is
--           settled, so that whoever finds the take pending can record it as it was asked
--
-- Returns:
--   {1, units, available}          APPLIED: units taken (negative; 0 to ARGV[3] with upto, and
--                                  nothing written when 0) or added (positive); available after
--   {2, units, pending, available} DUPLICATE: this id was applied here before with the same
--                                  quantity; units it took or added here, pending 1 while its
--                                  take is PENDING, else 0; nothing changed
--   {3, quantity}                  CONFLICT: this id was applied here with another quantity
--                                  (returned); nothing changed
--   {4}                            UNKNOWN_SKU: no counters for that SKU; nothing changed
--   {5, available}                 INSUFFICIENT: exact, and fewer units are available (returned);
--                                  nothing changed
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>": malformed call; nothing written

--#include parts/epoch.lua

--#include parts/integer.lua

--#include parts/valid_id.lua
--#include parts/time_ms.lua

if #KEYS ~= 3 or (#ARGV ~= 4 and #ARGV ~= 5) then
  return redis.error_reply('ERR_ARGUMENT expected 3 keys and 4 or 5 arguments')
end
local content = ARGV[5]
if content ~= nil and #content > 512 then
  return redis.error_reply('ERR_ARGUMENT content')
end
local sku = string.match(KEYS[1], ':sku:([^:]+)$')
if sku == nil then
  return redis.error_reply('ERR_ARGUMENT counters key')
end
local id = ARGV[1]
if not valid_id(id) then
  return redis.error_reply('ERR_ARGUMENT adjustmentId')
end
local quantity = integer(ARGV[2], -MAX)
if quantity == nil or quantity == 0 then
  return redis.error_reply('ERR_ARGUMENT quantity')
end
local units = integer(ARGV[3], 1, math.abs(quantity))
if units == nil or (quantity > 0 and units ~= quantity) then
  return redis.error_reply('ERR_ARGUMENT units')
end
local mode = ARGV[4]
if mode ~= 'exact' and (mode ~= 'upto' or quantity > 0) then
  return redis.error_reply('ERR_ARGUMENT mode')
end

local counters_kind = redis.call('TYPE', KEYS[1])['ok']
if counters_kind == 'none' then
  return { 4 }
end
if counters_kind ~= 'hash' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[1])
end
local applied_kind = redis.call('TYPE', KEYS[2])['ok']
if applied_kind ~= 'hash' and applied_kind ~= 'none' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[2])
end
local pending_kind = redis.call('TYPE', KEYS[3])['ok']
if pending_kind ~= 'zset' and pending_kind ~= 'none' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[3])
end
local available = integer(redis.call('HGET', KEYS[1], 'available'), 0)
if available == nil then
  return redis.error_reply('ERR_TYPE ' .. KEYS[1])
end

local record = redis.call('HGET', KEYS[2], id)
if record then
  local recorded, recorded_units, state = string.match(record, '^(%-?%d+) (%d+) (%u+)$')
  if recorded == nil then
    return redis.error_reply('ERR_TYPE ' .. KEYS[2])
  end
  if tonumber(recorded) ~= quantity then
    return { 3, tonumber(recorded) }
  end
  return { 2, tonumber(recorded_units), state == 'PENDING' and 1 or 0, available }
end

if quantity > 0 then
  redis.call('HSET', KEYS[2], id, string.format('%.0f %.0f RECORDED', quantity, units))
  return { 1, units, redis.call('HINCRBY', KEYS[1], 'available', units) }
end
local take = units
if available < units then
  if mode == 'exact' then
    return { 5, available }
  end
  take = available
end
if take == 0 then
  return { 1, 0, available }
end
redis.call('HSET', KEYS[2], id, string.format('%.0f %.0f PENDING', quantity, take))
if content ~= nil then
  redis.call('HSET', KEYS[2], id .. ':content', content)
end
redis.call('ZADD', KEYS[3], time_ms(), sku .. ' ' .. id)
return { 1, take, redis.call('HINCRBY', KEYS[1], 'available', -take) }
