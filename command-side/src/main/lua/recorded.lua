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

if #KEYS ~= 2 then
  return redis.error_reply('ERR_ARGUMENT expected the intent and the pending list')
end
local sequence = ARGV[1]
if sequence == nil or not string.match(sequence, '^%d+$') then
  return redis.error_reply('ERR_ARGUMENT sequence')
end
local admission_epoch = ARGV[2]
if admission_epoch == nil or not string.match(admission_epoch, '^%-?%d+$') then
  return redis.error_reply('ERR_ARGUMENT admission epoch')
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
  if tonumber(intent[1]) ~= tonumber(sequence)
      or (intent[2] and tonumber(intent[2]) ~= tonumber(admission_epoch)) then
    return { 6 }
  end
end
redis.call('ZREM', KEYS[2], KEYS[1])
return { 1 }
