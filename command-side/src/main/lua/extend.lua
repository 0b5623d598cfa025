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

--#include parts/epoch.lua
--#include parts/admission.lua

local sequence = ARGV[1]
local admission_epoch = ARGV[2]
local malformed = admission_arguments(sequence, admission_epoch)
if malformed then
  return malformed
end
--#include parts/integer.lua

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
if other_admission(intent[2], intent[3], sequence, admission_epoch) then
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
