package io.stockade.command.admission.redis;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the admission gate ({@code stockade.gate.*}). How long the gate waits for Redis is
 * {@code spring.data.redis.timeout}.
 *
 * @param intentRetention how long the intent record of a confirmed or released reservation is kept:
 *     the window in which a retry is recognised. Live reservations are kept until they end.
 * @param reopenInterval how often a closed gate tries to open again (reconnect, check, rebuild)
 * @param rebuildLease how long a rebuild begun by an instance that stopped answering holds off the
 *     other instances before one of them takes it over
 * @param openOnStart how long startup waits for the gate to open before it completes anyway (the
 *     gate then opens in the background; until then reservations get 503 and the readiness probe
 *     reports the gate CLOSED or REBUILDING)
 * @param partitions how many partitions (hash slots) the gate's keys are spread over, 1 to 1024: by
 *     default 1 on a standalone Redis and 16 on a Redis Cluster. Every instance must use the same
 *     number; a change rebuilds the gate from the event store.
 * @param placementPattern a regular expression whose first group is the part of a SKU id that
 *     places the SKU: SKUs with the same part share a partition, so a reservation of them takes one
 *     script call (for example {@code ^([^.]+)\.} places {@code shop1.tee} and {@code shop1.mug}
 *     together). Unset, or when an id does not match, the whole id places the SKU. Every instance
 *     must use the same pattern; a change rebuilds the gate.
 * @param decisionBacklog how many decisions each partition's decision stream may hold while they
 *     wait to be moved to the database (about 100 bytes of Redis memory each): once it holds that
 *     many, refusals are no longer logged one by one but counted per SKU and user, and the log
 *     shows the gap as one entry per SKU and user where they were dropped. Admitted decisions and
 *     withdrawals are always logged, whatever the stream holds; nothing is trimmed
 */
@ConfigurationProperties("stockade.gate")
public record GateProperties(
    @DefaultValue("24h") Duration intentRetention,
    @DefaultValue("500ms") Duration reopenInterval,
    @DefaultValue("60s") Duration rebuildLease,
    @DefaultValue("60s") Duration openOnStart,
    Integer partitions,
    String placementPattern,
    @DefaultValue("1000000") long decisionBacklog) {}
