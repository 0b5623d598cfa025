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

-- The gate's epoch comes first, before the keys and arguments above: KEYS[1] is the marker of the
-- partition the script acts in (hash stockade:{<t>}:gate) and ARGV[1] the epoch the caller opened
-- the gate in. When the marker holds another epoch, or none (Redis lost the partition's data, or
-- the gate is being rebuilt from the event store), the script answers {-1}, CLOSED, and writes
-- nothing. The rest of the script sees KEYS and ARGV without them.
local marker = table.remove(KEYS, 1)
local gate_epoch = table.remove(ARGV, 1)
if marker == nil or gate_epoch == nil or redis.call('HGET', marker, 'epoch') ~= gate_epoch then
  return { -1 }
end

local id = ARGV[1]
if id == nil or #id < 1 or #id > 64 or not string.match(id, '^[%w%._%-]+$') then
  return redis.error_reply('ERR_ARGUMENT replenishmentId')
end
local MAX = 9007199254740991

local function integer(value, min, max)
  if value == nil or not string.match(value, '^%-?%d+$') then
    return nil
  end
  local number = tonumber(value)
  if number == nil or number < min or number > (max or MAX) then
    return nil
  end
  return number
end

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
