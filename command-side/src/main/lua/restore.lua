-- Admission gate: rebuild step. Writes the gate's keys of one partition from the event store, one
-- batch at a time, only while the rebuild that calls it is still the gate's rebuild.
--
-- KEYS[1]      the partition's marker (hash)   stockade:{<t>}:gate
-- KEYS[2..n]   the keys the batch writes, all in the partition
-- ARGV[1]      the epoch being built
-- ARGV[2]      BEGIN: close the gate for that epoch (marker := {building = epoch}), unless a later
--                     epoch is being built already; no other argument
--              WRITE: apply the operations that follow, if the marker is still {building = epoch}
--              OPEN:  like WRITE, then marker := {epoch = epoch, runId = ARGV[3],
--                     partitions = ARGV[4], placement = ARGV[5]}
-- ARGV[3]      with OPEN: the run_id of the Redis server(s) the gate was built on
-- ARGV[4..5]   with OPEN: the layout the keys were written in: the number of partitions and the
--              placement pattern ('' for none)
-- then, with WRITE and OPEN, operations: name, key index (into KEYS), argument count, arguments;
-- name is one of HSET, PEXPIRE, SET, UNLINK, ZADD. HSET and ZADD take pairs (field value, score
-- member), PEXPIRE and SET at most 8 arguments, UNLINK none.
--
-- Lua's stack holds about 8,000 values, so an operation of any size is applied in slices of at
-- most SLICE arguments (one HSET or ZADD per slice): no unpack can fail whatever the call holds.
--
-- Returns {1} when done, {0} when another rebuild has taken over (nothing written).

local ALLOWED = { HSET = true, PEXPIRE = true, SET = true, UNLINK = true, ZADD = true }

local marker = KEYS[1]
local epoch = ARGV[1]
local mode = ARGV[2]
if epoch == nil or not string.match(epoch, '^%d+$') then
  return redis.error_reply('ERR_ARGUMENT epoch')
end
local building = redis.call('HGET', marker, 'building')

if mode == 'BEGIN' then
  if building and tonumber(building) > tonumber(epoch) then
    return { 0 }
  end
  redis.call('DEL', marker)
  redis.call('HSET', marker, 'building', epoch)
  return { 1 }
end

local first = 3
if mode == 'OPEN' then
  first = 6
  if ARGV[3] == nil then
    return redis.error_reply('ERR_ARGUMENT runId')
  end
  if ARGV[4] == nil or not string.match(ARGV[4], '^%d+$') or ARGV[5] == nil then
    return redis.error_reply('ERR_ARGUMENT layout')
  end
elseif mode ~= 'WRITE' then
  return redis.error_reply('ERR_ARGUMENT mode')
end
if building ~= epoch then
  return { 0 }
end

-- Check every operation before the first write.
local operations = {}
local i = first
while i <= #ARGV do
  local name = ARGV[i]
  local key = tonumber(ARGV[i + 1])
  local count = tonumber(ARGV[i + 2])
  if not ALLOWED[name] or key == nil or key < 2 or key > #KEYS or count == nil or count < 0
      or count ~= math.floor(count) or i + 2 + count > #ARGV
      or ((name == 'HSET' or name == 'ZADD') and (count == 0 or count % 2 ~= 0))
      or ((name == 'PEXPIRE' or name == 'SET') and (count == 0 or count > 8))
      or (name == 'UNLINK' and count ~= 0) then
    return redis.error_reply('ERR_ARGUMENT operation at ' .. i)
  end
  operations[#operations + 1] = { name = name, key = KEYS[key], from = i + 3, count = count }
  i = i + 3 + count
end

-- Even, so that a slice of HSET or ZADD never splits a pair.
local SLICE = 1000
for _, operation in ipairs(operations) do
  if operation.count == 0 then
    redis.call(operation.name, operation.key)
  else
    local last = operation.from + operation.count - 1
    for from = operation.from, last, SLICE do
      local to = math.min(from + SLICE - 1, last)
      redis.call(operation.name, operation.key, unpack(ARGV, from, to))
    end
  end
end
if mode == 'OPEN' then
  redis.call('DEL', marker)
  redis.call('HSET', marker, 'epoch', epoch, 'runId', ARGV[3], 'partitions', ARGV[4],
    'placement', ARGV[5])
end
return { 1 }
