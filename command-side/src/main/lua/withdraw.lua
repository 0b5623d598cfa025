-- Admission gate: withdraw an admission whose storing failed before its transaction could commit,
-- so that its units are back at once instead of after the recovery sweeper's bound.
--
-- KEYS[1]      intent record of the reservation (hash)   stockade:{<t>}:reservation:<reservationId>
-- KEYS[2]      admitted, not yet known to be recorded    stockade:{<t>}:gate:pending
-- KEYS[3]      the partition's decisions (stream)        stockade:{<t>}:gate:decisions
--              a withdrawal appends "<sequence> <epoch> W <userId> <reservationId>" then
--              "<skuId> <quantity> <availableAfter>" per line (as reserve.lua's entries): the
--              admission it names was given back, and no event will record it
-- KEYS[2i+2]   counters of the SKU of line i (hash)      stockade:{<t>}:sku:<skuId>
-- KEYS[2i+3]   units each user holds of that SKU (hash)  stockade:{<t>}:sku:<skuId>:holders
--              for i = 1..n, in the order of the intent's lines
-- ARGV[1]      the admission's sequence number  } only the admission they name is withdrawn; an
-- ARGV[2]      the admission's gate epoch       } intent written before intents kept their epoch
--                                                 is compared by its sequence alone
-- ARGV[3]      the intent's lines as the caller read them ("sku qty sku qty ..."); they must match
--
-- The withdrawal's entry is appended whatever the stream's length, as an admission's is: it is
-- never dropped or trimmed (reserve.lua drops refusals only).
--
-- The caller is one of the reservation's recorders (the request the gate admitted, or a retry the
-- gate answered DUPLICATE with recording = 1). It leaves; the units come back only when no other
-- recorder is left, since another one may still store the reservation. A recorder whose commit
-- may have happened never calls this: the sweeper settles such a reservation through the record.
--
-- Returns:
--   {1}   WITHDRAWN: units and the user's allowance back, intent and pending entry gone
--   {2}   OTHERS_RECORDING: the caller left; others may still store it; nothing else changed
--   {3}   NOT_WITHDRAWN: recorded or ended; nothing changed
--   {4}   UNKNOWN: no intent for that reservation; nothing changed
--   {5}   STALE: ARGV[3] differs from the intent's lines; read them again; nothing changed
--   {6}   OTHER_ADMISSION: the intent is another admission's of that id; nothing changed
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>" / "ERR_STATE <key>": nothing written

--#include parts/epoch.lua
--#include parts/admission.lua
--#include parts/intent_lines.lua

local sequence = ARGV[1]
local admission_epoch = ARGV[2]
local malformed = admission_arguments(sequence, admission_epoch)
if malformed then
  return malformed
end
if ARGV[3] == nil then
  return redis.error_reply('ERR_ARGUMENT lines')
end
local reservation = string.match(KEYS[1], ':reservation:(.+)$')
if reservation == nil then
  return redis.error_reply('ERR_ARGUMENT intent key')
end
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
  return { 4 }
end
if kind ~= 'hash' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[1])
end
local pending_kind = redis.call('TYPE', KEYS[2])['ok']
if pending_kind ~= 'zset' and pending_kind ~= 'none' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[2])
end
local decisions_kind = redis.call('TYPE', KEYS[3])['ok']
if decisions_kind ~= 'stream' and decisions_kind ~= 'none' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[3])
end
local intent = redis.call('HMGET', KEYS[1], 'state', 'lines', 'user', 'sequence', 'recorders',
  'epoch')
if other_admission(intent[4], intent[6], sequence, admission_epoch) then
  return { 6 }
end
if intent[1] ~= 'RESERVED' or not redis.call('ZSCORE', KEYS[2], KEYS[1]) then
  return { 3 }
end
if intent[2] ~= ARGV[3] then
  return { 5 }
end
local user = intent[3]
local lines = intent_lines(intent[2])
if #KEYS ~= 3 + 2 * #lines then
  return redis.error_reply('ERR_ARGUMENT expected 3 + 2 keys per line')
end
local unreserved = reserved_error(lines, 2)
if unreserved then
  return unreserved
end

if tonumber(intent[5] or '1') > 1 then
  redis.call('HINCRBY', KEYS[1], 'recorders', -1)
  return { 2 }
end
local entry = { intent[4], intent[6] or admission_epoch, 'W', user, reservation }
for i, line in ipairs(lines) do
  local counters = KEYS[2 + 2 * i]
  local holders = KEYS[3 + 2 * i]
  redis.call('HINCRBY', counters, 'reserved', -line.quantity)
  entry[#entry + 1] = line.sku
  entry[#entry + 1] = line.quantity
  entry[#entry + 1] = redis.call('HINCRBY', counters, 'available', line.quantity)
  if redis.call('HINCRBY', holders, user, -line.quantity) <= 0 then
    redis.call('HDEL', holders, user)
  end
end
redis.call('XADD', KEYS[3], '*', 'd', table.concat(entry, ' '))
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
return { 1 }
