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
