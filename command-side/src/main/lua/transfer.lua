-- Admission gate: move available units of a SKU split into buckets from one of its buckets to
-- another (they lie in different partitions), in steps, each one call in one partition:
--
--   EXPECT  in the target: a new move id, numbered by the target, listed there as expected
--   OUT     in the source: take up to the wanted units from available, count them as outgoing and
--           list the move as pending there, scored by the source's clock; once per move id while
--           it is pending (a repeat answers the move as it was taken)
--   IN      in the target: add the units to available if the move is listed as expected, and
--           list it as applied
--   DONE    in the source: the units arrived; no longer outgoing, no longer pending; the bucket's
--           finished moves counted
--   FORGET  in the target: the applied move is no longer listed
--   CANCEL  in the target: an expected move whose OUT took nothing is no longer listed
--   BACK    in the source: a pending move the target does not list (an OUT repeated after the
--           move was done) gives its units back to the source
--   LEFT    in the source: the moves pending there for at least a bound, by the source's clock
--
-- Between OUT and IN the units are available nowhere (an error towards not selling); a move left
-- pending (a crash, a failed Redis) is finished by the recovery sweeper, which repeats IN, DONE
-- and FORGET. Units are added at most once per move, however many actors run its steps and
-- however late: IN adds them only when the target lists the move as expected, which it does from
-- EXPECT until IN, never again. A move the target does not list (applied and forgotten, or never
-- expected) is GONE: nothing is added, and a source that still lists it (an OUT repeated by a
-- client after the move was done) gives its units back (BACK). No time enters these decisions; LEFT's only tells the
-- sweeper which moves their requests have given up, and it reads the source's own clock (TIME),
-- which also scored the move.
--
-- EXPECT  KEYS[1] counters of the SKU's target bucket (hash)   stockade:{<t>}:sku:<skuId>
--         KEYS[2] moves into the target (hash)                 stockade:{<t>}:gate:moves-in
--                 move id -> "EXPECTED <skuId> <units at most>" or "APPLIED <skuId> <units>"
--         KEYS[3] the target's last move id (string)           stockade:{<t>}:gate:move-sequence
--         ARGV[1] skuId, ARGV[2] units at most (1 to 2^53-1), ARGV[3] the target's partition index
--         -> {1, moveId} EXPECTED (moveId "<partition>.<n>"), {4} UNKNOWN_SKU: no counters,
--            nothing written
-- OUT     KEYS[1] counters of the SKU's source bucket (hash)
--         KEYS[2] moves pending in the source (sorted set)     stockade:{<t>}:gate:moves-out
--                 members "<moveId> <skuId> <targetPartition> <units>", scored by TIME (ms)
--         KEYS[3] the same moves by id (hash)                  stockade:{<t>}:gate:moves-out-ids
--                 moveId -> member
--         ARGV[1] moveId, ARGV[2] skuId, ARGV[3] target partition index,
--         ARGV[4] units wanted (1 to 2^53-1)
--         -> {1, units, member} TAKEN (units >= 1, fewer than wanted when the bucket holds fewer)
--            {0}                NOTHING: the bucket has no available unit
--            {4}                UNKNOWN_SKU: no counters
-- IN      KEYS[1] counters of the SKU's target bucket, KEYS[2] moves into the target
--         ARGV[1] moveId, ARGV[2] skuId, ARGV[3] units
--         -> {1} APPLIED, {2} ALREADY: applied before, {3} GONE: not listed, {4} UNKNOWN_SKU;
--            all but APPLIED change nothing
-- DONE    KEYS[1] counters of the source bucket, KEYS[2] moves pending in the source,
--         KEYS[3] the same by id; ARGV[1] the member OUT returned
--         -> {1} DONE, {2} ALREADY: not pending (done before), nothing changed
-- BACK    the keys and arguments of DONE
--         -> {1} BACK: the units are available in the source again, {2} ALREADY: not pending
-- FORGET  KEYS[1] moves into the target; ARGV[1] moveId
--         -> {1} FORGOTTEN or not listed, {3} EXPECTED: not applied, so kept
-- CANCEL  KEYS[1] moves into the target; ARGV[1] moveId
--         -> {1} CANCELLED or not listed, {2} APPLIED: kept
-- LEFT    KEYS[1] moves pending in the source; ARGV[1] bound (ms), ARGV[2] at most this many
--         -> {1, member...} the oldest first
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>": malformed call; nothing written
--
-- The mode comes after the gate's epoch (below): ARGV[2] as the caller sends them, before the keys
-- and arguments above. The rest of the script sees ARGV without it.

--#include parts/epoch.lua
local mode = table.remove(ARGV, 1)

--#include parts/integer.lua

--#include parts/valid_id.lua

local function check_types(types)
  for i, expected in ipairs(types) do
    local actual = redis.call('TYPE', KEYS[i])['ok']
    if actual ~= 'none' and actual ~= expected then
      return redis.error_reply('ERR_TYPE ' .. KEYS[i])
    end
  end
  return nil
end

-- The keys a mode takes, by type, in order.
local KEY_TYPES = {
  EXPECT = { 'hash', 'hash', 'string' },
  OUT = { 'hash', 'zset', 'hash' },
  IN = { 'hash', 'hash' },
  DONE = { 'hash', 'zset', 'hash' },
  BACK = { 'hash', 'zset', 'hash' },
  FORGET = { 'hash' },
  CANCEL = { 'hash' },
  LEFT = { 'zset' },
}
local types = mode and KEY_TYPES[mode]
if types == nil then
  return redis.error_reply('ERR_ARGUMENT mode')
end
if #KEYS ~= #types then
  return redis.error_reply('ERR_ARGUMENT ' .. mode .. ' takes ' .. #types .. ' keys')
end
local wrong = check_types(types)
if wrong then
  return wrong
end

-- A move's state in the target: its state word, SKU and units, or nil when not listed.
local function listed(key, id)
  local value = redis.call('HGET', key, id)
  if not value then
    return nil
  end
  local state, sku, units = string.match(value, '^(%u+) (%S+) (%d+)$')
  if state == nil then
    return redis.error_reply('ERR_TYPE ' .. key)
  end
  return state, sku, tonumber(units)
end

--#include parts/time_ms.lua

if mode == 'EXPECT' then
  local sku, most, partition = ARGV[1], integer(ARGV[2], 1), integer(ARGV[3], 0)
  if not valid_id(sku) or most == nil or partition == nil then
    return redis.error_reply('ERR_ARGUMENT expected skuId, units at most, partition')
  end
  if redis.call('EXISTS', KEYS[1]) == 0 then
    return { 4 }
  end
  local id = string.format('%.0f', partition) .. '.' .. redis.call('INCR', KEYS[3])
  redis.call('HSET', KEYS[2], id, 'EXPECTED ' .. sku .. ' ' .. string.format('%.0f', most))
  return { 1, id }
end

if mode == 'OUT' then
  local id, sku = ARGV[1], ARGV[2]
  local target, wanted = integer(ARGV[3], 0), integer(ARGV[4], 1)
  if not valid_id(id) or not valid_id(sku) or target == nil or wanted == nil then
    return redis.error_reply('ERR_ARGUMENT expected moveId, skuId, target, units')
  end
  local taken = redis.call('HGET', KEYS[3], id)
  if taken then
    return { 1, tonumber(string.match(taken, ' (%d+)$')), taken }
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
  local now = time_ms()
  redis.call('HINCRBY', KEYS[1], 'available', -units)
  redis.call('HINCRBY', KEYS[1], 'outgoing', units)
  redis.call('ZADD', KEYS[2], now, member)
  redis.call('HSET', KEYS[3], id, member)
  return { 1, units, member }
end

if mode == 'IN' then
  local id, sku, units = ARGV[1], ARGV[2], integer(ARGV[3], 1)
  if not valid_id(id) or not valid_id(sku) or units == nil then
    return redis.error_reply('ERR_ARGUMENT expected moveId, skuId, units')
  end
  local state, expected_sku, most = listed(KEYS[2], id)
  if type(state) == 'table' then
    return state
  end
  if state == nil then
    return { 3 }
  end
  if expected_sku ~= sku or (state == 'EXPECTED' and units > most) then
    return redis.error_reply('ERR_ARGUMENT move ' .. id .. ' is not of these units of ' .. sku)
  end
  if state == 'APPLIED' then
    return { 2 }
  end
  if redis.call('EXISTS', KEYS[1]) == 0 then
    return { 4 }
  end
  redis.call('HINCRBY', KEYS[1], 'available', units)
  redis.call('HSET', KEYS[2], id, 'APPLIED ' .. sku .. ' ' .. string.format('%.0f', units))
  return { 1 }
end

if mode == 'DONE' or mode == 'BACK' then
  local member = ARGV[1]
  local id = member and string.match(member, '^(%S+) ')
  local units = member and tonumber(string.match(member, ' (%d+)$'))
  if id == nil or units == nil then
    return redis.error_reply('ERR_ARGUMENT member')
  end
  if redis.call('ZREM', KEYS[2], member) == 0 then
    return { 2 }
  end
  redis.call('HDEL', KEYS[3], id)
  redis.call('HINCRBY', KEYS[1], 'outgoing', -units)
  if mode == 'BACK' then
    redis.call('HINCRBY', KEYS[1], 'available', units)
  end
  -- Counts finished moves: a reader summing the buckets one by one knows, when the count has not
  -- changed between two passes, that no unit went uncounted from one bucket to the other.
  redis.call('HINCRBY', KEYS[1], 'moves', 1)
  return { 1 }
end

if mode == 'FORGET' or mode == 'CANCEL' then
  local id = ARGV[1]
  if not valid_id(id) then
    return redis.error_reply('ERR_ARGUMENT expected a moveId')
  end
  local state = listed(KEYS[1], id)
  if type(state) == 'table' then
    return state
  end
  -- FORGET keeps a move still expected (its units may be on their way), CANCEL one applied.
  if state == (mode == 'FORGET' and 'EXPECTED' or 'APPLIED') then
    return { mode == 'FORGET' and 3 or 2 }
  end
  redis.call('HDEL', KEYS[1], id)
  return { 1 }
end

-- LEFT
local bound, most = integer(ARGV[1], 0), integer(ARGV[2], 1)
if bound == nil or most == nil then
  return redis.error_reply('ERR_ARGUMENT expected a bound and a count')
end
local left = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', time_ms() - bound, 'LIMIT', 0, most)
table.insert(left, 1, 1)
return left
