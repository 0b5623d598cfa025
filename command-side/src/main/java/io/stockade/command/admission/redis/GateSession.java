package io.stockade.command.admission.redis;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A connection to the gate's Redis, checked to hold the gate of {@code epoch}. Scripts run with
 * that epoch and refuse to act once Redis holds another one (or none), so a session never admits on
 * data it was not opened for.
 */
public record GateSession(StringRedisTemplate redis, long epoch) {}
