-- Admission gate: a SKU's counters and sale state in one bucket, with this Redis's clock. Read-only.
--
-- KEYS[1]   counters of the SKU (hash)   stockade:{<t>}:sku:<skuId>
--
-- Returns:
--   {1, available, reserved, sold, limit, opensAt, closesAt, paused, now}
--        limit -1: none; opensAt, closesAt -1: no bound; paused 0 or 1; now: this Redis's TIME
--        (epoch ms), the clock reserve.lua decides the sale's window by
--   {4}  UNKNOWN_SKU: no counters for that SKU in this bucket
--   error "ERR_ARGUMENT <reason>" / "ERR_TYPE <key>": malformed call

--#include parts/epoch.lua
--#include parts/time_ms.lua

if #KEYS ~= 1 or #ARGV ~= 0 then
  return redis.error_reply('ERR_ARGUMENT expected 1 key and no arguments')
end
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
  return { 4 }
end
if kind ~= 'hash' then
  return redis.error_reply('ERR_TYPE ' .. KEYS[1])
end
local fields = redis.call('HMGET', KEYS[1], 'available', 'reserved', 'sold', 'limit', 'opensAt',
  'closesAt', 'paused')
local reply = { 1 }
local defaults = { 0, 0, 0, -1, -1, -1, 0 }
for i = 1, 7 do
  local value = fields[i] and tonumber(fields[i])
  if fields[i] and value == nil then
    return redis.error_reply('ERR_TYPE ' .. KEYS[1])
  end
  reply[i + 1] = value or defaults[i]
end
reply[9] = time_ms()
return reply
