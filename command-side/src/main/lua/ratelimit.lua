-- Rate limits: take one token from every token bucket of a request, or from none.
--
-- KEYS[i]          token bucket i (hash)                       stockade:ratelimit:user:{<userId>}
--                                                              stockade:ratelimit:client:{<client>}
--                  for i = 1..n, n >= 1, in the caller's order (a reservation: user, then client)
-- ARGV[2i-1]       capacity of bucket i
-- ARGV[2i]         refill of bucket i
-- The buckets, their fields and their arguments are token_buckets' below. A reservation on one
-- Redis takes its buckets in reserve.lua's call instead (the same code), one round trip less; on a
-- cluster, where its buckets and its partition lie in different slots, it takes them here.
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

--#include parts/token_buckets.lua

if #KEYS < 1 or #ARGV ~= 2 * #KEYS then
  return redis.error_reply('ERR_ARGUMENT expected n >= 1 keys and 2n arguments')
end
local take, refused = token_buckets(KEYS, ARGV)
if take == nil then
  if refused.err then
    return refused
  end
  return { 0, refused[1], refused[2] }
end
take()
return { 1 }
