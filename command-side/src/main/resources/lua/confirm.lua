-- Admission gate: turn a reservation's reserved units into sold units (payment succeeded).
--
-- KEYS[1]      intent record of the reservation (hash)   stockade:reservation:{<reservationId>}
-- KEYS[1+i]    counters of the SKU of line i (hash)      stockade:sku:{<skuId>}
--              for i = 1..n, in the order of the intent's lines
-- ARGV[1]      retention: milliseconds the finished intent is kept (the idempotency window)
-- ARGV[2]      the intent's lines as the caller read them ("sku qty sku qty ..."); they must match
--
-- Returns:
--   {1}   CONFIRMED: reserved -> sold for every line; the intent is CONFIRMED and now expires
--   {2}   ALREADY: it was confirmed before; nothing changed
--   {3}   NOT_ACTIVE: it was released (or expired); nothing changed
--   {4}   UNKNOWN: no intent for that reservation; nothing changed
--   {5}   STALE: ARGV[2] differs from the intent's lines; read them again; nothing changed
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>": malformed call; nothing written
-- The user's allowance is not given back: confirmed units still count towards the limit.

local function integer(value, min)
  if value == nil or not string.match(value, '^%d+$') then
    return nil
  end
  local number = tonumber(value)
  if number == nil or number < min or number > 9007199254740991 then
    return nil
  end
  return number
end

local retention = integer(ARGV[1], 1)
if retention == nil then
  return redis.error_reply('ERR_ARGUMENT retention')
end
if ARGV[2] == nil then
  return redis.error_reply('ERR_ARGUMENT lines')
end
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
  return { 4 }
end
if kind ~= 'hash' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[1])
end
local intent = redis.call('HMGET', KEYS[1], 'state', 'lines')
if intent[1] == 'CONFIRMED' then
  return { 2 }
end
if intent[1] ~= 'RESERVED' then
  return { 3 }
end
if intent[2] ~= ARGV[2] then
  return { 5 }
end

-- Lines: pairs of skuId and quantity, one per KEYS[1+i].
local lines = {}
for sku, quantity in string.gmatch(intent[2], '(%S+) (%d+)') do
  lines[#lines + 1] = { sku = sku, quantity = tonumber(quantity) }
end
if #KEYS ~= 1 + #lines then
  return redis.error_reply('ERR_ARGUMENT expected 1 + 1 key per line')
end
for i, line in ipairs(lines) do
  if redis.call('TYPE', KEYS[1 + i])['ok'] ~= 'hash' then
    return redis.error_reply('ERR_TYPE ' .. KEYS[1 + i])
  end
  local reserved = tonumber(redis.call('HGET', KEYS[1 + i], 'reserved') or '0')
  if reserved < line.quantity then
    -- The counters do not hold what the intent says: a gate to rebuild, not to patch.
    return redis.error_reply('ERR_STATE ' .. KEYS[1 + i] .. ' reserved ' .. reserved)
  end
end

for i, line in ipairs(lines) do
  redis.call('HINCRBY', KEYS[1 + i], 'reserved', -line.quantity)
  redis.call('HINCRBY', KEYS[1 + i], 'sold', line.quantity)
end
redis.call('HSET', KEYS[1], 'state', 'CONFIRMED')
redis.call('PEXPIRE', KEYS[1], retention)
return { 1 }
