-- Admission gate: add sellable stock to a SKU, once per replenishment id.
--
-- KEYS[1]   counters of the SKU (hash)                       stockade:{<t>}:sku:<skuId>
-- KEYS[2]   replenishments applied to it (hash: id -> qty)
--           stockade:{<t>}:sku:<skuId>:replenishments
-- ARGV[1]   replenishmentId: [A-Za-z0-9._-]{1,64}
-- ARGV[2]   quantity, an integer from 1 to 2^53-1
--
-- Returns:
--   {1, available}   APPLIED: available increased by the quantity
--   {2, available}   DUPLICATE: this id was applied before with the same quantity; nothing changed
--   {3, quantity}    CONFLICT: this id was applied before with another quantity (returned)
--   {4}              UNKNOWN_SKU: no counters for that SKU; nothing changed
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>": malformed call; nothing written

--#include parts/epoch.lua

--#include parts/valid_id.lua

local id = ARGV[1]
if not valid_id(id) then
  return redis.error_reply('ERR_ARGUMENT replenishmentId')
end
--#include parts/integer.lua

local quantity = integer(ARGV[2], 1)
if quantity == nil then
  return redis.error_reply('ERR_ARGUMENT quantity')
end
quantity = tonumber(quantity)
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
local applied = redis.call('HGET', KEYS[2], id)
if applied then
  if tonumber(applied) == quantity then
    return { 2, tonumber(redis.call('HGET', KEYS[1], 'available')) }
  end
  return { 3, tonumber(applied) }
end
redis.call('HSET', KEYS[2], id, quantity)
return { 1, redis.call('HINCRBY', KEYS[1], 'available', quantity) }
