-- Admission gate: move available units of a SKU split into buckets from one of its buckets to
-- another (they lie in different partitions), in four steps, each one call in one partition:
--
--   OUT     in the source: take up to the wanted units from available, count them as outgoing and
--           list the transfer as pending there
--   IN      in the target: add the units to available, once per transfer id
--   DONE    in the source: the units arrived; no longer outgoing, no longer pending; the bucket's
--           finished moves counted
--   FORGET  in the target: the transfer id is no longer needed to keep IN from counting twice
--
-- Between OUT and IN the units are available nowhere (an error towards not selling); a transfer
-- left pending (a crash, a failed Redis) is finished by the recovery sweeper, which repeats IN,
-- DONE and FORGET: each is idempotent. Units are never added twice: IN refuses a transfer id it
-- has applied, and the id is forgotten only after DONE took the transfer off the pending list.
--
-- OUT     KEYS[1] counters of the SKU's source bucket (hash)   stockade:{<t>}:sku:<skuId>
--         KEYS[2] transfers pending in the source (sorted set)  stockade:{<t>}:gate:transfers
--                 members "<transferId> <skuId> <targetPartition> <units>", scored by time
--         ARGV[1] transferId [A-Za-z0-9._-]{1,64}, ARGV[2] skuId, ARGV[3] target partition index,
--         ARGV[4] units wanted (1 to 2^53-1), ARGV[5] now (epoch ms)
--         -> {1, units, member} TAKEN (units >= 1, fewer than wanted when the bucket holds fewer)
--            {0}                NOTHING: the bucket has no available unit
--            {4}                UNKNOWN_SKU: no counters
-- IN      KEYS[1] counters of the SKU's target bucket (hash)
--         KEYS[2] transfers applied in the target (sorted set)  stockade:{<t>}:gate:transfers-in
--         ARGV[1] transferId, ARGV[2] units, ARGV[3] now
--         -> {1} APPLIED, {2} ALREADY: applied before, nothing changed, {4} UNKNOWN_SKU
-- DONE    KEYS[1] counters of the source bucket, KEYS[2] transfers pending in the source
--         ARGV[1] the member OUT returned
--         -> {1} DONE, {2} ALREADY: not pending (done before), nothing changed
-- FORGET  KEYS[1] transfers applied in the target; ARGV[1] transferId
--         -> {1}
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>": malformed call; nothing written
--
-- The gate's epoch comes first, before the mode, the keys and arguments above: KEYS[1] is the
-- marker of the partition the script acts in (hash stockade:{<t>}:gate) and ARGV[1] the epoch the
-- caller opened the gate in. When the marker holds another epoch, or none (Redis lost the
-- partition's data, or the gate is being rebuilt from the event store), the script answers {-1},
-- CLOSED, and writes nothing. ARGV[2] is the mode. The rest of the script sees KEYS and ARGV
-- without them.
local marker = table.remove(KEYS, 1)
local gate_epoch = table.remove(ARGV, 1)
if marker == nil or gate_epoch == nil or redis.call('HGET', marker, 'epoch') ~= gate_epoch then
  return { -1 }
end
local mode = table.remove(ARGV, 1)

local MAX = 9007199254740991

local function integer(value, min)
  if value == nil or not string.match(value, '^%d+$') then
    return nil
  end
  local number = tonumber(value)
  if number == nil or number < min or number > MAX then
    return nil
  end
  return number
end

local function valid_id(value)
  return value ~= nil and #value >= 1 and #value <= 64 and string.match(value, '^[%w%._%-]+$') ~= nil
end

local function check_type(key, expected)
  local actual = redis.call('TYPE', key)['ok']
  if actual ~= 'none' and actual ~= expected then
    return redis.error_reply('ERR_TYPE ' .. key)
  end
  return nil
end

if mode == 'FORGET' then
  if #KEYS ~= 1 or not valid_id(ARGV[1]) then
    return redis.error_reply('ERR_ARGUMENT expected the applied transfers and a transferId')
  end
  local wrong = check_type(KEYS[1], 'zset')
  if wrong then
    return wrong
  end
  redis.call('ZREM', KEYS[1], ARGV[1])
  return { 1 }
end

if #KEYS ~= 2 then
  return redis.error_reply('ERR_ARGUMENT expected the counters and a transfers set')
end
local wrong = check_type(KEYS[1], 'hash') or check_type(KEYS[2], 'zset')
if wrong then
  return wrong
end

if mode == 'OUT' then
  local id, sku = ARGV[1], ARGV[2]
  local target, wanted, now = integer(ARGV[3], 0), integer(ARGV[4], 1), integer(ARGV[5], 0)
  if not valid_id(id) or not valid_id(sku) or target == nil or wanted == nil or now == nil then
    return redis.error_reply('ERR_ARGUMENT expected transferId, skuId, target, units, now')
  end
  local available = redis.call('HGET', KEYS[1], 'available')
  if not available then
    return { 4 }
  end
  local units = math.min(tonumber(available), wanted)
  if units < 1 then
    return { 0 }
  end
  local member = id .. ' ' .. sku .. ' ' .. target .. ' ' .. string.format('%.0f', units)
  redis.call('HINCRBY', KEYS[1], 'available', -units)
  redis.call('HINCRBY', KEYS[1], 'outgoing', units)
  redis.call('ZADD', KEYS[2], now, member)
  return { 1, units, member }
end

if mode == 'IN' then
  local id, units, now = ARGV[1], integer(ARGV[2], 1), integer(ARGV[3], 0)
  if not valid_id(id) or units == nil or now == nil then
    return redis.error_reply('ERR_ARGUMENT expected transferId, units, now')
  end
  if redis.call('TYPE', KEYS[1])['ok'] == 'none' then
    return { 4 }
  end
  if redis.call('ZSCORE', KEYS[2], id) then
    return { 2 }
  end
  redis.call('HINCRBY', KEYS[1], 'available', units)
  redis.call('ZADD', KEYS[2], now, id)
  return { 1 }
end

if mode == 'DONE' then
  local member = ARGV[1]
  local units = member and tonumber(string.match(member, ' (%d+)$'))
  if units == nil then
    return redis.error_reply('ERR_ARGUMENT member')
  end
  if redis.call('ZREM', KEYS[2], member) == 0 then
    return { 2 }
  end
  redis.call('HINCRBY', KEYS[1], 'outgoing', -units)
  -- Counts finished moves: a reader summing the buckets one by one knows, when the count has not
  -- changed between two passes, that no unit went uncounted from one bucket to the other.
  redis.call('HINCRBY', KEYS[1], 'moves', 1)
  return { 1 }
end

return redis.error_reply('ERR_ARGUMENT mode')
