-- Admission gate: close the partition's gap of dropped refusals once its decision stream has room
-- again, when no decision comes to close it (reserve.lua closes it before the first decision it
-- appends with room). The decision drain calls it after moving the stream's entries.
--
-- KEYS[1]      admission sequence (string counter)      stockade:{<t>}:gate:sequence
-- KEYS[2]      the partition's decisions (stream)       stockade:{<t>}:gate:decisions
-- KEYS[3]      refusals dropped while the stream was full (hash)
--                                                        stockade:{<t>}:gate:dropped
--              fields count, and "<skuId> <userId>" with the refusals dropped of each
-- ARGV[1]      the partition's index p (sequence numbers are counter * 1024 + p)
-- ARGV[2]      how many entries the stream may hold before refusals are dropped (reserve.lua's
--              backlog)
--
-- The gap's entries are "<sequence> <epoch> G <userId> - <skuId> <refusals> -", one per field, as
-- reserve.lua appends them, in the epoch the partition is open in.
--
-- Returns:
--   {1, entries}  CLOSED: the gap's entries appended, the gap gone
--   {0}           NOTHING: no gap, or the stream has no room yet
--   {-1}          CLOSED_GATE: the partition is not open (being rebuilt); nothing written
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>": nothing written

-- Not in an epoch of the caller's: the drain runs without a gate session, and the gap's entries
-- take the epoch the partition is open in. KEYS[1] is the partition's marker (hash
-- stockade:{<t>}:gate); the rest of the script sees KEYS without it.
local marker = table.remove(KEYS, 1)
if marker == nil or #KEYS ~= 3 then
  return redis.error_reply('ERR_ARGUMENT expected the marker, sequence, stream and gap')
end
local gate_epoch = redis.call('HGET', marker, 'epoch')
if not gate_epoch then
  return { -1 }
end

--#include parts/integer.lua

local partition = integer(ARGV[1], 0, 1023)
if partition == nil then
  return redis.error_reply('ERR_ARGUMENT partition')
end
local backlog = integer(ARGV[2], 1)
if backlog == nil then
  return redis.error_reply('ERR_ARGUMENT backlog')
end
for i, expected in ipairs({ 'string', 'stream', 'hash' }) do
  local actual = redis.call('TYPE', KEYS[i])['ok']
  if actual ~= 'none' and actual ~= expected then
    return redis.error_reply('ERR_TYPE ' .. KEYS[i])
  end
end
if redis.call('EXISTS', KEYS[3]) == 0 or redis.call('XLEN', KEYS[2]) >= backlog then
  return { 0 }
end

--#include parts/close_gap.lua

return { 1, close_gap(KEYS[2], KEYS[3], KEYS[1], gate_epoch, partition) }
