package io.stockade.query.reconciliation;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReserved;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.query.Events;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What the reconciliation tests write: events appended to the event store (as the command side
 * appends them) and the gate's keys in Redis, as the command side's scripts leave them: grouped in
 * partitions, {@code stockade:{T}:...} with a hash tag {@code T}. Each fixture writes to partitions
 * of its own ({@link #tag()}, and more from {@link #newTag()}), only keys of its run's SKUs and
 * reservations, and {@link #clean()} deletes them.
 *
 * <p>The tests read the gate from a Redis of their own ({@link #ownRedis}): a command side working
 * on the suite's shared Redis and database keeps a gate there of every SKU of the database, the
 * tests' included, in partitions of its own, which the reconciliation would add to the tests'
 * counters; and its rebuilds clear every {@code stockade:*} key. The database is the suite's.
 */
final class GateFixture {

  private final EventStore eventStore;
  private final TransactionTemplate transaction;
  private final StringRedisTemplate redis;
  private final String tag = newTag();
  private final List<String> written = new ArrayList<>();

  /** Pending set to the intent keys this fixture listed there. */
  private final Map<String, List<String>> pending = new LinkedHashMap<>();

  GateFixture(EventStore eventStore, TransactionTemplate transaction, StringRedisTemplate redis) {
    this.eventStore = eventStore;
    this.transaction = transaction;
    this.redis = redis;
  }

  /**
   * A Redis server of a test class's own (a real redis-server on a free port, its files under the
   * build's temporary folder), stopped when the test JVM ends, after the application contexts that
   * use it.
   */
  static EmbeddedRedis ownRedis(String name) {
    EmbeddedRedis redis =
        EmbeddedRedis.start(
            Path.of(System.getProperty("java.io.tmpdir"), name + "-" + UUID.randomUUID()));
    Runtime.getRuntime().addShutdownHook(new Thread(redis::stop));
    return redis;
  }

  /** Points the application at that Redis, whatever the environment says. */
  static void useRedis(DynamicPropertyRegistry properties, EmbeddedRedis redis) {
    properties.add("spring.data.redis.host", () -> "127.0.0.1");
    properties.add("spring.data.redis.port", redis::port);
  }

  static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** A hash tag no other run uses: a partition of the test's own. */
  static String newTag() {
    return unique("test");
  }

  /** The fixture's partition, where the methods without a tag write. */
  String tag() {
    return tag;
  }

  void append(String aggregateId, long sequence, Object payload) {
    Events.append(eventStore, transaction, aggregateId, sequence, payload);
  }

  StockReserved reserved(String reservationId, String skuId, int quantity) {
    return reserved(reservationId, List.of(new ReservationLine(skuId, quantity)));
  }

  StockReserved reserved(String reservationId, List<ReservationLine> lines) {
    Instant now = Instant.now();
    return new StockReserved(reservationId, "u-1", lines, now, now.plusSeconds(900), 1, 1);
  }

  /** The SKU's counters hash in the fixture's partition. */
  void counters(String skuId, long available, long reserved, long sold) {
    counters(tag, skuId, available, reserved, sold);
  }

  /** The SKU's counters hash in partition {@code tag}, {@code stockade:{tag}:sku:skuId}. */
  void counters(String tag, String skuId, long available, long reserved, long sold) {
    String key = countersKey(tag, skuId);
    written.add(key);
    redis
        .opsForHash()
        .putAll(
            key,
            Map.of(
                "available", Long.toString(available),
                "reserved", Long.toString(reserved),
                "sold", Long.toString(sold),
                "limit", "-1"));
  }

  void increment(String skuId, String field, long by) {
    increment(tag, skuId, field, by);
  }

  void increment(String tag, String skuId, String field, long by) {
    redis.opsForHash().increment(countersKey(tag, skuId), field, by);
  }

  /** A reservation's intent record in the fixture's partition. */
  void intent(String reservationId, String state, String skuId, int quantity) {
    intent(tag, reservationId, state, skuId + " " + quantity);
  }

  /**
   * A reservation's intent record, or the part of one, in partition {@code tag}: {@code
   * stockade:{tag}:reservation:reservationId} with its {@code lines} ("sku qty sku qty ...").
   */
  void intent(String tag, String reservationId, String state, String lines) {
    String key = intentKey(tag, reservationId);
    written.add(key);
    redis
        .opsForHash()
        .putAll(
            key,
            Map.of(
                "state",
                state,
                "user",
                "u-1",
                "lines",
                lines,
                "sequence",
                "1",
                "admittedAt",
                Long.toString(System.currentTimeMillis())));
  }

  /** A part's state changed, as a confirmation or release does in one partition. */
  void state(String tag, String reservationId, String state) {
    redis.opsForHash().put(intentKey(tag, reservationId), "state", state);
  }

  /**
   * What a partial confirmation does to a part in partition {@code tag}: CONFIRMED, with the units
   * sold of each of its lines in {@code confirmed} ("sku qty ...", in the order of its lines, a
   * quantity of 0 for a SKU given back whole); its lines stay the units reserved.
   */
  void confirmedInPart(String tag, String reservationId, String confirmed) {
    redis
        .opsForHash()
        .putAll(
            intentKey(tag, reservationId), Map.of("state", "CONFIRMED", "confirmed", confirmed));
  }

  /** What an extension does to a part in partition {@code tag}: its hold ends at {@code end}. */
  void extended(String tag, String reservationId, Instant end) {
    redis
        .opsForHash()
        .put(intentKey(tag, reservationId), "expiresAt", Long.toString(end.toEpochMilli()));
  }

  /** What an admission does in the fixture's partition. */
  void admit(String reservationId, String skuId, int quantity) {
    admit(tag, reservationId, skuId, quantity);
  }

  /**
   * What an admission does in partition {@code tag}: the units taken, the intent (or its part)
   * recorded and listed as pending in that partition.
   */
  void admit(String tag, String reservationId, String skuId, int quantity) {
    admit(tag, reservationId, skuId, quantity, Duration.ZERO);
  }

  /**
   * What an admission does in partition {@code tag}, {@code ago} before now by Redis's clock: its
   * pending entry scored by the TIME of the Redis holding the partition, as reserve.lua scores it.
   */
  void admit(String tag, String reservationId, String skuId, int quantity, Duration ago) {
    intent(tag, reservationId, "RESERVED", skuId + " " + quantity);
    String pendingKey = pendingKey(tag);
    String intentKey = intentKey(tag, reservationId);
    written.add(pendingKey);
    redis.opsForZSet().add(pendingKey, intentKey, redisTime(pendingKey) - ago.toMillis());
    pending.computeIfAbsent(pendingKey, key -> new ArrayList<>()).add(intentKey);
    increment(tag, skuId, "available", -quantity);
    increment(tag, skuId, "reserved", quantity);
  }

  /**
   * What a negative adjustment's take does in the fixture's partition, as adjust.lua does it: the
   * units taken from the available ones, the take PENDING in the SKU's adjustments hash and listed
   * in the partition's pending adjustments, scored by Redis's clock.
   */
  void take(String skuId, String adjustmentId, int units) {
    String hash = countersKey(tag, skuId) + ":adjustments";
    String listed = adjustmentsPendingKey(tag);
    written.add(hash);
    written.add(listed);
    redis.opsForHash().put(hash, adjustmentId, -units + " " + units + " PENDING");
    redis.opsForZSet().add(listed, skuId + " " + adjustmentId, redisTime(listed));
    increment(tag, skuId, "available", -units);
  }

  /** What the command side does once the take's event is stored. */
  void takeRecorded(String skuId, String adjustmentId) {
    String hash = countersKey(tag, skuId) + ":adjustments";
    String entry = (String) redis.opsForHash().get(hash, adjustmentId);
    redis.opsForHash().put(hash, adjustmentId, entry.replace("PENDING", "RECORDED"));
    redis.opsForZSet().remove(adjustmentsPendingKey(tag), skuId + " " + adjustmentId);
  }

  /** What the command side does once the admission's event is stored, in every partition. */
  void recorded(String reservationId) {
    pending.forEach(
        (pendingKey, intentKeys) ->
            intentKeys.stream()
                .filter(intentKey -> intentKey.endsWith(":reservation:" + reservationId))
                .forEach(intentKey -> redis.opsForZSet().remove(pendingKey, intentKey)));
  }

  /** Partition {@code tag}'s marker, {@code stockade:{tag}:gate}, with these fields only. */
  void marker(String tag, Map<String, String> fields) {
    String key = "stockade:{" + tag + "}:gate";
    written.add(key);
    redis.delete(key);
    redis.opsForHash().putAll(key, fields);
  }

  /** Partition {@code tag}'s marker while the gate is open. */
  void openMarker(String tag, long epoch, int partitions) {
    marker(
        tag,
        Map.of(
            "epoch",
            Long.toString(epoch),
            "runId",
            "run-" + epoch,
            "partitions",
            Integer.toString(partitions),
            "placement",
            ""));
  }

  void clean() {
    pending.forEach(
        (pendingKey, intentKeys) -> redis.opsForZSet().remove(pendingKey, intentKeys.toArray()));
    pending.clear();
    // One key at a time: on a Redis Cluster, the keys lie in several slots.
    written.forEach(redis::delete);
    written.clear();
  }

  /** The time (epoch ms) of the Redis holding {@code key}: on a cluster, its slot's master's. */
  private long redisTime(String key) {
    return redis.execute(
        (RedisCallback<Long>)
            connection ->
                connection instanceof RedisClusterConnection cluster
                    ? cluster.time(
                        cluster.clusterGetNodeForKey(key.getBytes(StandardCharsets.UTF_8)))
                    : connection.serverCommands().time());
  }

  static String countersKey(String tag, String skuId) {
    return "stockade:{" + tag + "}:sku:" + skuId;
  }

  static String intentKey(String tag, String reservationId) {
    return "stockade:{" + tag + "}:reservation:" + reservationId;
  }

  static String adjustmentsPendingKey(String tag) {
    return "stockade:{" + tag + "}:gate:adjustments-pending";
  }

  static String pendingKey(String tag) {
    return "stockade:{" + tag + "}:gate:pending";
  }
}
