-- Rate limits: take one token from every token bucket of a request, or from none.
--
-- KEYS[i]          token bucket i (hash)                       stockade:ratelimit:user:{<userId>}
--                                                              stockade:ratelimit:client:{<client>}
--                  fields tokens (millionths of a token, an integer) and at (the Redis time they
--                  were counted at, microseconds); no key is a full bucket
--                  for i = 1..n, n >= 1, in the caller's order (a reservation: user, then client)
-- ARGV[2i-1]       capacity of bucket i: the tokens it holds when full, an integer from 1 to 10^9
-- ARGV[2i]         refill of bucket i: tokens per second, a decimal number from 0.000001 to 10^9
--
-- A bucket refills continuously at its rate, up to its capacity; a request takes one token from
-- each of its buckets. Time is Redis's own (TIME), so instances whose clocks differ count alike.
-- A bucket's key expires when the bucket would be full again: a missing key is a full bucket, so
-- an idle user or client leaves no key behind.
--
-- Returns:
--   {1}                                ALLOWED: one token taken from every bucket
--   {0, index, retryAfterMillis}       LIMITED: bucket index (1-based, the first in the caller's
--                                      order that holds less than one token) is short; nothing
--                                      taken from any bucket. retryAfterMillis (at least 1): until
--                                      every short bucket holds a token again
--   error "ERR_ARGUMENT <reason>"      malformed call; nothing written
--   error "ERR_TYPE <key>"             a key holds the wrong Redis type or a malformed bucket;
--                                      nothing written
-- Every check runs before the first write, so a refusal or an error writes nothing.

local MICRO = 1000000
local MAX_CAPACITY = 1000000000
local MAX_RATE = 1000000000

local function argument_error(reason)
  return redis.error_reply('ERR_ARGUMENT ' .. reason)
end

-- Whole numbers up to 10^15 are exact in a Lua number; tostring would print them with 14
-- significant digits, so every number written is formatted here.
local function whole(number)
  return string.format('%.0f', number)
end

local n = #KEYS
if n < 1 or #ARGV ~= 2 * n then
  return argument_error('expected n >= 1 keys and 2n arguments')
end

local capacities = {}
local rates = {}
for i = 1, n do
  local capacity = ARGV[2 * i - 1]
  local rate = ARGV[2 * i]
  if not string.match(capacity, '^%d+$') or tonumber(capacity) < 1
      or tonumber(capacity) > MAX_CAPACITY then
    return argument_error('capacity of bucket ' .. i)
  end
  if not (string.match(rate, '^%d+$') or string.match(rate, '^%d*%.%d+$'))
      or tonumber(rate) * MICRO < 1 or tonumber(rate) > MAX_RATE then
    return argument_error('refill of bucket ' .. i)
  end
  -- In millionths of a token, and in millionths of a token per microsecond.
  capacities[i] = tonumber(capacity) * MICRO
  rates[i] = tonumber(rate)
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * MICRO + tonumber(time[2])

-- Every bucket's tokens as of now; then the check; only then the writes.
local tokens = {}
local short = 0
local wait = 0
for i = 1, n do
  local kind = redis.call('TYPE', KEYS[i])['ok']
  if kind == 'none' then
    tokens[i] = capacities[i]
  elseif kind == 'hash' then
    local state = redis.call('HMGET', KEYS[i], 'tokens', 'at')
    local counted = tonumber(state[1])
    local at = tonumber(state[2])
    if counted == nil or at == nil then
      return redis.error_reply('ERR_TYPE ' .. KEYS[i])
    end
    local elapsed = math.max(now - at, 0)
    tokens[i] = math.min(capacities[i], counted + math.floor(elapsed * rates[i]))
  else
    return redis.error_reply('ERR_TYPE ' .. KEYS[i])
  end
  if tokens[i] < MICRO then
    if short == 0 then
      short = i
    end
    wait = math.max(wait, math.ceil((MICRO - tokens[i]) / rates[i]))
  end
end

if short > 0 then
  return { 0, short, math.max(math.ceil(wait / 1000), 1) }
end

for i = 1, n do
  local left = tokens[i] - MICRO
  redis.call('HSET', KEYS[i], 'tokens', whole(left), 'at', whole(now))
  -- Full again after (capacity - left) / rate microseconds.
  local full = math.ceil((capacities[i] - left) / rates[i] / 1000)
  redis.call('PEXPIRE', KEYS[i], whole(math.max(full, 1)))
end
return { 1 }
