-- Admission gate: decide many queued reservations of a pre-queue's draw in one call, in order,
-- each exactly as reserve.lua decides it (with the draw's flag: a draw in progress does not hold
-- it back, and a refusal is kept in its intent record).
--
-- reserve.lua's code is included below as the function reserve(KEYS, ARGV) (its epoch check, then
-- parts/reserve.lua with this call's memo), so that the draw decides with the very code of
-- reserve.lua. One call holds Redis for the time of its reservations (a few tens of
-- microseconds each): the caller sends them in batches.
--
-- KEYS[1]   the partition's marker, ARGV[1] the epoch (the gate's epoch check, as every script)
-- ARGV[2]   n, the number of reservations
-- then, for each reservation i in order: ARGV the number of its keys k_i and of its arguments a_i,
-- then its a_i arguments; KEYS its k_i keys, in the same order: reserve.lua's keys and arguments
-- after the marker and the epoch.
--
-- Returns {0, reply_1, ..., reply_n}: reserve.lua's reply for each reservation, in order; or {-1}
-- (CLOSED) and nothing decided when the marker holds another epoch or none.

-- The call's own epoch check, not parts/epoch.lua's: it leaves the marker and the epoch in place to
-- hand them on with each reservation, whose reserve() checks them again as reserve.lua does.
local marker = KEYS[1]
local epoch = ARGV[1]
if marker == nil or epoch == nil or redis.call('HGET', marker, 'epoch') ~= epoch then
  return { -1 }
end

-- reserve.lua's draw_memo for every reservation of this call (parts/reserve.lua): the types of
-- the keys, the decision streams' lengths and gaps, the clock.
local memo = { types = {}, streams = {} }

local function reserve(KEYS, ARGV)
--#include parts/epoch.lua
local draw_memo = memo
--#include parts/reserve.lua
end

local count = tonumber(ARGV[2])
if count == nil then
  return redis.error_reply('ERR_ARGUMENT count')
end
local replies = { 0 }
local key = 2
local arg = 3
for i = 1, count do
  local key_count = tonumber(ARGV[arg])
  local arg_count = tonumber(ARGV[arg + 1])
  if key_count == nil or arg_count == nil then
    return redis.error_reply('ERR_ARGUMENT counts of reservation ' .. i)
  end
  arg = arg + 2
  local keys = { marker }
  local args = { epoch }
  for k = 1, key_count do
    keys[k + 1] = KEYS[key]
    key = key + 1
  end
  for a = 1, arg_count do
    args[a + 1] = ARGV[arg]
    arg = arg + 1
  end
  replies[i + 1] = reserve(keys, args)
end
return replies
