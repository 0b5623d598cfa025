-- Admission gate: move the end of a reserved admission's hold (its reservation was extended).
--
-- KEYS[1]      intent record of the reservation's part (hash)  stockade:{<t>}:reservation:<reservationId>
-- ARGV[1]      the admission's sequence number, as the record holds it (StockReserved)
-- ARGV[2]      the admission's gate epoch, as the record holds it (StockReserved)
-- ARGV[3]      the hold's new end, epoch milliseconds (ReservationExtended)
--
-- The intent's expiresAt is what the gate answers a retry of the reservation with (DUPLICATE); it
-- moves only forward, and only for the admission named (as in transition.lua). No stock moves: the
-- reservation's expiry is the record's business (its expiry row), not the gate's.
--
-- Returns:
--   {1}   DONE: expiresAt moved to ARGV[3]
--   {2}   ALREADY: expiresAt was ARGV[3] or later; nothing changed
--   {3}   NOT_ACTIVE: the intent is not RESERVED (confirmed, released, withdrawn); nothing changed
--   {4}   UNKNOWN: no intent for that reservation; nothing changed
--   {6}   OTHER_ADMISSION: the intent is another admission's; nothing changed
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>": nothing written

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

local sequence = ARGV[1]
if sequence == nil or not string.match(sequence, '^%d+$') then
  return redis.error_reply('ERR_ARGUMENT sequence')
end
local admission_epoch = ARGV[2]
if admission_epoch == nil or not string.match(admission_epoch, '^%-?%d+$') then
  return redis.error_reply('ERR_ARGUMENT admission epoch')
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

local expires = integer(ARGV[3], 0)
if expires == nil then
  return redis.error_reply('ERR_ARGUMENT expiresAt')
end
if #KEYS ~= 1 then
  return redis.error_reply('ERR_ARGUMENT expected 1 key')
end
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
  return { 4 }
end
if kind ~= 'hash' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[1])
end
local intent = redis.call('HMGET', KEYS[1], 'state', 'sequence', 'epoch', 'expiresAt')
if tonumber(intent[2]) ~= tonumber(sequence)
    or (intent[3] and tonumber(intent[3]) ~= tonumber(admission_epoch)) then
  return { 6 }
end
if intent[1] ~= 'RESERVED' then
  return { 3 }
end
if intent[4] and tonumber(intent[4]) >= tonumber(expires) then
  return { 2 }
end
redis.call('HSET', KEYS[1], 'expiresAt', expires)
return { 1 }
