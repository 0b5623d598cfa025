-- Admission gate: write one part of a SKU's sale state into one bucket's counters, if newer.
--
-- The state is driven by events of the SKU's stream (SaleScheduled; SalePaused and SaleResumed;
-- PurchaseLimitChanged), written by the command that stored the event and again by a follower
-- that may replay them late, twice or out of order. Each write carries the event's sequence number
-- in the SKU's stream and is applied only when it is newer than the one stored for its part of the
-- state: one version per part (scheduleVersion, pauseVersion, limitVersion, drawnVersion), so that
-- a late pause never undoes a newer schedule or limit, nor a late schedule a newer pause.
--
-- KEYS[1]   counters of the SKU (hash)   stockade:{<t>}:sku:<skuId>
--           fields written: opensAt and closesAt (epoch ms; absent: no bound), prequeue (ms before
--           opensAt the pre-queue opens; absent: none) and scheduleVersion; paused (0 or 1) and
--           pauseVersion; limit (-1: none) and limitVersion; drawn (the opensAt whose pre-queue
--           draw is decided: DrawDecided) and drawnVersion. With a pre-queue, the reservations
--           arriving from opensAt wait until drawn is opensAt (reserve.lua)
-- ARGV[1]   part: schedule, pause, limit or drawn
-- ARGV[2]   version: the event's sequence number, an integer from 0 to 2^53-1
-- ARGV[3..] for schedule: opensAt, closesAt, each an integer from 0 to 2^53-1 or "-" for no
--           bound (opensAt before closesAt when both are given), and the pre-queue in ms (0: none;
--           only with an opensAt)
--           for drawn: the opensAt whose draw is decided
--           for pause: 1 (paused) or 0 (resumed)
--           for limit: the per-user limit, an integer >= 0, or -1 for none
--
-- Returns:
--   {1, version}   APPLIED: the part's fields and its version written
--   {2, version}   STALE: the stored version of that part (returned) is the same or newer;
--                  nothing changed (a repeat, or an event older than one applied)
--   {4}            UNKNOWN_SKU: no counters for that SKU; nothing written
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>": malformed call; nothing written

--#include parts/epoch.lua

--#include parts/integer.lua

local part = ARGV[1]
local expected = { schedule = 5, pause = 3, limit = 3, drawn = 3 }
if #KEYS ~= 1 or part == nil or expected[part] == nil then
  return redis.error_reply('ERR_ARGUMENT expected 1 key and a part: schedule, pause, limit or drawn')
end
if #ARGV ~= expected[part] then
  return redis.error_reply('ERR_ARGUMENT expected ' .. expected[part] .. ' arguments for ' .. part)
end
local version = integer(ARGV[2], 0)
if version == nil then
  return redis.error_reply('ERR_ARGUMENT version')
end

local fields
if part == 'schedule' then
  local opens = ARGV[3] == '-' or integer(ARGV[3], 0)
  local closes = ARGV[4] == '-' or integer(ARGV[4], 0)
  if opens == nil then
    return redis.error_reply('ERR_ARGUMENT opensAt')
  end
  if closes == nil then
    return redis.error_reply('ERR_ARGUMENT closesAt')
  end
  if opens ~= true and closes ~= true and opens >= closes then
    return redis.error_reply('ERR_ARGUMENT opensAt must be before closesAt')
  end
  local prequeue = integer(ARGV[5], 0)
  if prequeue == nil or (prequeue > 0 and opens == true) then
    return redis.error_reply('ERR_ARGUMENT prequeue')
  end
  fields = { opensAt = opens, closesAt = closes, prequeue = prequeue == 0 or prequeue }
elseif part == 'drawn' then
  local drawn = integer(ARGV[3], 0)
  if drawn == nil then
    return redis.error_reply('ERR_ARGUMENT drawn')
  end
  fields = { drawn = drawn }
elseif part == 'pause' then
  local paused = integer(ARGV[3], 0, 1)
  if paused == nil then
    return redis.error_reply('ERR_ARGUMENT paused')
  end
  fields = { paused = paused }
else
  local limit = integer(ARGV[3], -1)
  if limit == nil then
    return redis.error_reply('ERR_ARGUMENT limit')
  end
  fields = { limit = limit }
end

local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
  return { 4 }
end
if kind ~= 'hash' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[1])
end
local version_field = part .. 'Version'
local stored = redis.call('HGET', KEYS[1], version_field)
if stored then
  local applied = integer(stored, 0)
  if applied == nil then
    return redis.error_reply('ERR_TYPE ' .. KEYS[1])
  end
  if applied >= version then
    return { 2, applied }
  end
end
for field, value in pairs(fields) do
  if value == true then
    redis.call('HDEL', KEYS[1], field)
  else
    redis.call('HSET', KEYS[1], field, string.format('%.0f', value))
  end
end
redis.call('HSET', KEYS[1], version_field, string.format('%.0f', version))
return { 1, version }
