-- Admission gate: the admissions of one partition pending (admitted, not yet known to be recorded)
-- for at least a bound, by this Redis's clock: the recovery sweeper's work list. Read-only.
--
-- reserve.lua scores each pending entry with this Redis's TIME, and this script compares the scores
-- with the same TIME, so that "pending for longer than the bound" is judged by one clock whatever
-- the clocks of the instances that admit and sweep.
--
-- KEYS[1]      admitted, not yet known to be recorded     stockade:{<t>}:gate:pending
--              (sorted set: intent keys scored by TIME at admission, ms)
--              or the adjustment takes not yet known to be recorded
--              stockade:{<t>}:gate:adjustments-pending (members "<skuId> <adjustmentId>", scored
--              by TIME at the take, ms: adjust.lua), listed alike
-- ARGV[1]      bound, milliseconds (0 to 2^53-1): entries scored at most TIME - bound are listed
-- ARGV[2]      at most this many entries (1 to 2^53-1)
--
-- Returns:
--   {1, intentKey, age, intentKey, age, ...}   the entries pending for at least the bound, the
--                                              oldest first; age: milliseconds since admission by
--                                              this Redis's clock
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>": malformed call

--#include parts/epoch.lua

--#include parts/integer.lua
--#include parts/time_ms.lua

if #KEYS ~= 1 then
  return redis.error_reply('ERR_ARGUMENT expected the pending list')
end
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind ~= 'zset' and kind ~= 'none' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[1])
end
local bound, most = integer(ARGV[1], 0), integer(ARGV[2], 1)
if bound == nil or most == nil then
  return redis.error_reply('ERR_ARGUMENT expected a bound and a count')
end

local now = time_ms()
local entries = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - bound, 'WITHSCORES', 'LIMIT', 0,
  most)
local reply = { 1 }
for i = 1, #entries, 2 do
  reply[#reply + 1] = entries[i]
  reply[#reply + 1] = now - tonumber(entries[i + 1])
end
return reply
