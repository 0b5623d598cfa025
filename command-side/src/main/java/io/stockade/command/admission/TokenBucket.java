package io.stockade.command.admission;

/**
 * A token bucket of a request's rate limits, which the gate takes a token from in the same script
 * call as the admission (reserve.lua's {@code token_buckets}): its key and its limit, as the script
 * takes them.
 *
 * @param capacity the tokens of a full bucket, 1 to 10^9
 * @param refillPerSecond the tokens added per second, a plain decimal number (no exponent)
 */
public record TokenBucket(String key, long capacity, String refillPerSecond) {}
