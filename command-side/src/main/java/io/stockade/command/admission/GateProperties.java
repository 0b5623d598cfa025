package io.stockade.command.admission;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the admission gate ({@code stockade.gate.*}). How long the gate waits for Redis is
 * {@code spring.data.redis.timeout}.
 *
 * @param intentRetention how long the intent record of a confirmed or released reservation is kept:
 *     the window in which a retry is recognised. Live reservations are kept until they end.
 */
@ConfigurationProperties("stockade.gate")
record GateProperties(@DefaultValue("24h") Duration intentRetention) {}
