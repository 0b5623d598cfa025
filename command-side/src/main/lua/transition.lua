-- Admission gate: end a reservation, by confirming it (payment succeeded) or releasing it.
--
-- KEYS[1]      intent record of the reservation (hash)   stockade:{<t>}:reservation:<reservationId>
-- KEYS[2i]     counters of the SKU of line i (hash)      stockade:{<t>}:sku:<skuId>
-- KEYS[2i+1]   units each user holds of that SKU (hash)  stockade:{<t>}:sku:<skuId>:holders
--              for i = 1..n, in the order of the intent's lines
-- ARGV[1]      CONFIRMED or RELEASED: the state to go to
-- ARGV[2]      the admission's sequence number, as the record holds it (StockReserved)
-- ARGV[3]      the admission's gate epoch, as the record holds it (StockReserved)
-- ARGV[4]      retention: milliseconds the finished intent is kept (the idempotency window)
-- ARGV[5]      the intent's lines as the caller read them ("sku qty sku qty ..."); they must match
-- ARGV[6]      with RELEASED: the reason (CANCELLED, EXPIRED, ...), [A-Z_]{1,32}
--              with CONFIRMED, optional: the units confirmed of this part, "sku qty sku qty ..."
--              (a partial confirmation), each SKU one of the intent's, at most once, at most its
--              reserved quantity; a SKU absent, or "" for all, confirms none of its units. Absent:
--              every unit is confirmed
--
-- Only the admission named by ARGV[2] and ARGV[3] is moved: an intent of any other admission of
-- the id (the id reused by another user, whose admission lies in another bucket; or admitted anew
-- once this one's intent expired) is OTHER_ADMISSION and is left alone. An intent written before
-- intents kept their epoch is compared by its sequence alone.
--
-- CONFIRMED moves reserved -> sold; the user's allowance is not given back (confirmed units
-- still count towards the limit). A partial confirmation (ARGV[6]) moves the units it names so and
-- the rest of each line reserved -> available, giving the user's allowance back for them, and
-- records what it sold in the intent's field confirmed ("sku qty ..." in the order of the intent's
-- lines, 0 for a SKU none of whose units were sold). RELEASED moves reserved -> available and gives
-- the user's allowance back. Either way the intent takes the new state and now expires after the
-- retention.
--
-- Returns:
--   {1}   DONE: the reservation went to the state now
--   {2}   ALREADY: it was in that state before; nothing changed
--   {3}   NOT_ACTIVE: it went the other way before; nothing changed
--   {4}   UNKNOWN: no intent for that reservation; nothing changed
--   {5}   STALE: ARGV[5] differs from the intent's lines; read them again; nothing changed
--   {6}   OTHER_ADMISSION: the intent is another admission's; nothing changed
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>" / "ERR_STATE <key>": nothing written

--#include parts/epoch.lua
--#include parts/admission.lua
--#include parts/intent_lines.lua

local target = ARGV[1]
if target ~= 'CONFIRMED' and target ~= 'RELEASED' then
  return redis.error_reply('ERR_ARGUMENT target state')
end
local sequence = ARGV[2]
local admission_epoch = ARGV[3]
local malformed = admission_arguments(sequence, admission_epoch)
if malformed then
  return malformed
end
--#include parts/integer.lua

local retention = integer(ARGV[4], 1)
if retention == nil then
  return redis.error_reply('ERR_ARGUMENT retention')
end
if ARGV[5] == nil then
  return redis.error_reply('ERR_ARGUMENT lines')
end
local reason = ARGV[6]
if target == 'RELEASED'
    and (reason == nil or #reason > 32 or not string.match(reason, '^[A-Z_]+$')) then
  return redis.error_reply('ERR_ARGUMENT reason')
end
-- With CONFIRMED: SKU -> units confirmed, or nil for every unit.
local confirmed = nil
if target == 'CONFIRMED' and ARGV[6] ~= nil then
  confirmed = {}
  local canonical = {}
  for sku, quantity in string.gmatch(ARGV[6], '(%S+) (%S+)') do
    if confirmed[sku] ~= nil or not string.match(quantity, '^%d+$') or #quantity > 10 then
      return redis.error_reply('ERR_ARGUMENT confirmed lines')
    end
    confirmed[sku] = tonumber(quantity)
    canonical[#canonical + 1] = sku .. ' ' .. quantity
  end
  if table.concat(canonical, ' ') ~= ARGV[6] then
    return redis.error_reply('ERR_ARGUMENT confirmed lines')
  end
end
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
  return { 4 }
end
if kind ~= 'hash' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[1])
end
local intent = redis.call('HMGET', KEYS[1], 'state', 'lines', 'user', 'sequence', 'epoch')
if other_admission(intent[4], intent[5], sequence, admission_epoch) then
  return { 6 }
end
if intent[1] == target then
  return { 2 }
end
if intent[1] ~= 'RESERVED' then
  return { 3 }
end
if intent[2] ~= ARGV[5] then
  return { 5 }
end
local user = intent[3]

local lines = intent_lines(intent[2])
if #KEYS ~= 1 + 2 * #lines then
  return redis.error_reply('ERR_ARGUMENT expected 1 + 2 keys per line')
end
local sold = {}
if confirmed ~= nil then
  local known = {}
  for i, line in ipairs(lines) do
    known[line.sku] = true
    sold[i] = confirmed[line.sku] or 0
    if sold[i] > line.quantity then
      return redis.error_reply('ERR_ARGUMENT confirmed more than reserved of ' .. line.sku)
    end
  end
  for sku in pairs(confirmed) do
    if not known[sku] then
      return redis.error_reply('ERR_ARGUMENT confirmed a SKU not reserved: ' .. sku)
    end
  end
else
  for i, line in ipairs(lines) do
    sold[i] = target == 'CONFIRMED' and line.quantity or 0
  end
end
local unreserved = reserved_error(lines, 0)
if unreserved then
  return unreserved
end

for i, line in ipairs(lines) do
  local counters = KEYS[2 * i]
  local holders = KEYS[2 * i + 1]
  local back = line.quantity - sold[i]
  redis.call('HINCRBY', counters, 'reserved', -line.quantity)
  if sold[i] > 0 then
    redis.call('HINCRBY', counters, 'sold', sold[i])
  end
  if back > 0 then
    redis.call('HINCRBY', counters, 'available', back)
    if redis.call('HINCRBY', holders, user, -back) <= 0 then
      redis.call('HDEL', holders, user)
    end
  end
end
if target == 'RELEASED' then
  redis.call('HSET', KEYS[1], 'state', target, 'reason', reason)
elseif confirmed ~= nil then
  local recorded = {}
  for i, line in ipairs(lines) do
    recorded[i] = line.sku .. ' ' .. sold[i]
  end
  redis.call('HSET', KEYS[1], 'state', target, 'confirmed', table.concat(recorded, ' '))
else
  redis.call('HSET', KEYS[1], 'state', target)
end
redis.call('PEXPIRE', KEYS[1], retention)
return { 1 }
