-- Token buckets, taken by ratelimit.lua alone and by reserve.lua with an admission. keys are the
-- buckets (hashes: fields tokens, in millionths of a token, an integer, and at, the Redis time they
-- were counted at, in microseconds; no key is a full bucket), args[2i-1] the capacity of bucket i
-- (the tokens it holds when full, an integer from 1 to 10^9) and args[2i] its refill (tokens per
-- second, a decimal number from 0.000001 to 10^9). A bucket refills continuously at its rate, up to
-- its capacity, by Redis's own clock (TIME), so that instances whose clocks differ count alike; its
-- key expires when the bucket would be full again, so an idle user or client leaves no key behind.
-- Reads every bucket and writes nothing. Answers a function that takes one token from every bucket
-- (for the caller to call once every check of its own has passed), or nil and either an error reply
-- (ERR_ARGUMENT, or ERR_TYPE for a key of another type or a malformed bucket) or {index,
-- retryAfterMillis}: bucket index (1-based, the first that holds less than one token) is short, and
-- every short bucket holds one again after retryAfterMillis (at least 1).
local function token_buckets(keys, args)
  local MICRO = 1000000
  local n = #keys
  if #args ~= 2 * n then
    return nil, redis.error_reply('ERR_ARGUMENT expected a capacity and a refill per bucket')
  end
  local capacities = {}
  local rates = {}
  for i = 1, n do
    local capacity = args[2 * i - 1]
    local rate = args[2 * i]
    if not string.match(capacity, '^%d+$') or tonumber(capacity) < 1
        or tonumber(capacity) > 1000000000 then
      return nil, redis.error_reply('ERR_ARGUMENT capacity of bucket ' .. i)
    end
    if not (string.match(rate, '^%d+$') or string.match(rate, '^%d*%.%d+$'))
        or tonumber(rate) * MICRO < 1 or tonumber(rate) > 1000000000 then
      return nil, redis.error_reply('ERR_ARGUMENT refill of bucket ' .. i)
    end
    -- In millionths of a token, and in millionths of a token per microsecond.
    capacities[i] = tonumber(capacity) * MICRO
    rates[i] = tonumber(rate)
  end
  if n == 0 then
    return function() end
  end
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * MICRO + tonumber(time[2])
  local tokens = {}
  local short = 0
  local wait = 0
  for i = 1, n do
    local kind = redis.call('TYPE', keys[i])['ok']
    if kind == 'none' then
      tokens[i] = capacities[i]
    elseif kind == 'hash' then
      local state = redis.call('HMGET', keys[i], 'tokens', 'at')
      local counted = tonumber(state[1])
      local at = tonumber(state[2])
      if counted == nil or at == nil then
        return nil, redis.error_reply('ERR_TYPE ' .. keys[i])
      end
      local elapsed = math.max(now - at, 0)
      tokens[i] = math.min(capacities[i], counted + math.floor(elapsed * rates[i]))
    else
      return nil, redis.error_reply('ERR_TYPE ' .. keys[i])
    end
    if tokens[i] < MICRO then
      if short == 0 then
        short = i
      end
      wait = math.max(wait, math.ceil((MICRO - tokens[i]) / rates[i]))
    end
  end
  if short > 0 then
    return nil, { short, math.max(math.ceil(wait / 1000), 1) }
  end
  return function()
    for i = 1, n do
      local left = tokens[i] - MICRO
      -- Whole numbers up to 10^15 are exact in a Lua number; tostring would print them with 14
      -- significant digits, so they are formatted here.
      redis.call('HSET', keys[i], 'tokens', string.format('%.0f', left), 'at',
        string.format('%.0f', now))
      -- Full again after (capacity - left) / rate microseconds.
      local full = math.ceil((capacities[i] - left) / rates[i] / 1000)
      redis.call('PEXPIRE', keys[i], string.format('%.0f', math.max(full, 1)))
    end
  end
end
