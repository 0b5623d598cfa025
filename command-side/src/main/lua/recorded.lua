-- Admission gate: take a reservation's part off the pending list once its event is stored (or once
-- the recovery sweeper has settled it), for the admission the caller names and no other.
--
-- KEYS[1]      intent record of the reservation (hash)   stockade:{<t>}:reservation:<reservationId>
-- KEYS[2]      admitted, not yet known to be recorded    stockade:{<t>}:gate:pending
-- ARGV[1]      the admission's sequence number; 0: the caller found no intent, and clears a
--              pending entry left without one
-- ARGV[2]      the admission's gate epoch; an intent written before intents kept their epoch is
--              compared by its sequence alone
--
-- The pending entry is the recovery sweeper's only way to an admission that is never stored: an
-- entry taken off for another admission of the id (the id reused by another user, whose admission
-- lies in another bucket) would leave that admission's units held for good.
--
-- Returns:
--   {1}   CLEARED: the entry is off the list (or was not on it)
--   {6}   OTHER_ADMISSION: the intent is another admission's; nothing changed
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>": nothing written

--#include parts/epoch.lua
--#include parts/admission.lua

if #KEYS ~= 2 then
  return redis.error_reply('ERR_ARGUMENT expected the intent and the pending list')
end
local sequence = ARGV[1]
local admission_epoch = ARGV[2]
local malformed = admission_arguments(sequence, admission_epoch)
if malformed then
  return malformed
end
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind ~= 'hash' and kind ~= 'none' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[1])
end
local pending_kind = redis.call('TYPE', KEYS[2])['ok']
if pending_kind ~= 'zset' and pending_kind ~= 'none' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[2])
end
if kind == 'hash' then
  local intent = redis.call('HMGET', KEYS[1], 'sequence', 'epoch')
  if other_admission(intent[1], intent[2], sequence, admission_epoch) then
    return { 6 }
  end
end
redis.call('ZREM', KEYS[2], KEYS[1])
return { 1 }
