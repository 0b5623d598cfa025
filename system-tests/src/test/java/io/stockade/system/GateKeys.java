package io.stockade.system;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.stockade.gatekeys.GateKey;
import io.stockade.gatekeys.GateKeyspace;
import io.stockade.gatekeys.PartitionKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The admission gate's keys ({@link PartitionKeys}, as docs/design.md lists them), read from each
 * master of the cluster in turn (a SCAN walks one node only), on a connection of its own per call,
 * so that a master restarted in between is simply read again.
 */
final class GateKeys implements AutoCloseable {

  private static final String HOST = "127.0.0.1";

  /** The keys of every partition: their names as SCAN patterns (braces are literal in one). */
  private static final PartitionKeys EVERY = PartitionKeys.of("*");

  private final RedisClient client = RedisClient.create();
  private final List<Integer> masters;

  GateKeys(List<Integer> masters) {
    this.masters = List.copyOf(masters);
  }

  /** One bucket of a SKU: the master that holds it, its partition, its counters. */
  record Bucket(int master, int partition, String key, Map<String, String> counters) {

    long number(String field) {
      String value = counters.get(field);
      return value == null ? 0 : Long.parseLong(value);
    }

    /** The partition indices of the SKU's buckets, home first, as the counters record them. */
    List<Integer> placement() {
      List<Integer> placement = new ArrayList<>();
      String recorded = counters.get("buckets");
      if (recorded != null && !recorded.isBlank()) {
        for (String index : recorded.trim().split(" ")) {
          placement.add(Integer.parseInt(index));
        }
      }
      return placement;
    }
  }

  /** Every counters hash of the SKU ({@link PartitionKeys#counters}), on every master. */
  List<Bucket> buckets(String skuId) {
    List<Bucket> buckets = new ArrayList<>();
    for (int master : masters) {
      onMaster(
          master,
          redis -> {
            for (String key : scan(redis, EVERY.counters(skuId))) {
              buckets.add(new Bucket(master, partitionOf(key), key, redis.hgetall(key)));
            }
            return null;
          });
    }
    return buckets;
  }

  /** The SKU's counters summed over its buckets: available, reserved, sold, outgoing. */
  Map<String, Long> totals(String skuId) {
    Map<String, Long> totals = new HashMap<>();
    for (String field : List.of("available", "reserved", "sold", "outgoing")) {
      totals.put(field, 0L);
    }
    for (Bucket bucket : buckets(skuId)) {
      totals.replaceAll((field, sum) -> sum + bucket.number(field));
    }
    return totals;
  }

  /** The master (its index in the cluster's list) that holds the SKU's home bucket. */
  int homeMaster(String skuId) {
    List<Bucket> buckets = buckets(skuId);
    for (Bucket bucket : buckets) {
      List<Integer> placement = bucket.placement();
      if (!placement.isEmpty() && placement.get(0) == bucket.partition()) {
        return masters.indexOf(bucket.master());
      }
    }
    throw new IllegalStateException("No home bucket of " + skuId + " among " + buckets);
  }

  /** Admissions not yet known to be recorded, in every partition. */
  long pendingAdmissions() {
    long pending = 0;
    for (int master : masters) {
      pending +=
          onMaster(
              master, redis -> scan(redis, EVERY.pending()).stream().mapToLong(redis::zcard).sum());
    }
    return pending;
  }

  /** The reservations of the admissions not yet known to be recorded, in every partition. */
  List<String> pendingReservations() {
    List<String> ids = new ArrayList<>();
    for (int master : masters) {
      onMaster(
          master,
          redis -> {
            for (String key : scan(redis, EVERY.pending())) {
              PartitionKeys partition = PartitionKeys.of(GateKey.parse(key).tag());
              for (String intent : redis.zrange(key, 0, -1)) {
                ids.add(partition.reservationId(intent));
              }
            }
            return null;
          });
    }
    return ids;
  }

  /** Moves of units between buckets not yet known to have arrived, in every partition. */
  long transfersInFlight() {
    long transfers = 0;
    for (int master : masters) {
      transfers +=
          onMaster(
              master,
              redis -> scan(redis, EVERY.transfers()).stream().mapToLong(redis::zcard).sum());
    }
    return transfers;
  }

  private static List<String> scan(RedisCommands<String, String> redis, String pattern) {
    List<String> keys = new ArrayList<>();
    ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1000);
    KeyScanCursor<String> cursor = redis.scan(ScanCursor.INITIAL, args);
    keys.addAll(cursor.getKeys());
    while (!cursor.isFinished()) {
      cursor = redis.scan(cursor, args);
      keys.addAll(cursor.getKeys());
    }
    return keys;
  }

  private static int partitionOf(String key) {
    GateKey parsed = GateKey.parse(key);
    if (parsed == null) {
      throw new IllegalStateException("Not a gate key of a partition: " + key);
    }
    return GateKeyspace.partitionIndex(parsed.tag());
  }

  private <T> T onMaster(int port, Function<RedisCommands<String, String>, T> work) {
    RedisURI uri = RedisURI.Builder.redis(HOST, port).withTimeout(Duration.ofSeconds(10)).build();
    try (StatefulRedisConnection<String, String> connection = client.connect(uri)) {
      return work.apply(connection.sync());
    }
  }

  @Override
  public void close() {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
