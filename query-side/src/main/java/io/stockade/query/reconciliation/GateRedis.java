package io.stockade.query.reconciliation;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Reads Redis as the gate's reader needs it, whether one Redis or a Redis Cluster: a SCAN of every
 * master that serves slots, pipelined batches (on a cluster, Lettuce sends each single-key command
 * of a pipeline to the master of its key's slot), the keys of one type, and each key's server
 * clock.
 */
final class GateRedis {

  static final int BATCH = 500;
  private static final int CLUSTER_SLOTS = 16384;

  private final StringRedisTemplate redis;

  GateRedis(StringRedisTemplate redis) {
    this.redis = redis;
  }

  /**
   * The time (epoch ms) of the Redis that holds each of these keys: on a Redis Cluster, of the
   * master serving its slot (read once per master), else of the one Redis.
   */
  Map<String, Long> clocks(List<String> keys) {
    Map<String, Long> clocks = new HashMap<>();
    if (keys.isEmpty()) {
      return clocks;
    }
    redis.execute(
        (RedisCallback<Void>)
            connection -> {
              if (connection instanceof RedisClusterConnection cluster) {
                Map<String, Long> byMaster = new HashMap<>();
                for (String key : keys) {
                  RedisClusterNode master = cluster.clusterGetNodeForKey(bytes(key));
                  clocks.put(
                      key,
                      byMaster.computeIfAbsent(master.asString(), name -> cluster.time(master)));
                }
              } else {
                Long now = connection.serverCommands().time();
                keys.forEach(key -> clocks.put(key, now));
              }
              return null;
            });
    return clocks;
  }

  /**
   * The keys of that type. Anything else under the gate's names is not the gate's (or not readable
   * as such) and is left out, rather than failing the pipeline that reads them.
   */
  List<String> ofType(List<String> keys, DataType type) {
    List<String> matching = new ArrayList<>();
    for (List<String> batch : batches(keys)) {
      List<Object> types =
          redis.executePipelined(
              (RedisCallback<Object>)
                  connection -> {
                    for (String key : batch) {
                      connection.keyCommands().type(bytes(key));
                    }
                    return null;
                  });
      for (int i = 0; i < batch.size(); i++) {
        if (types.get(i) == type) {
          matching.add(batch.get(i));
        }
      }
    }
    return matching;
  }

  /**
   * The answers of pipelined commands, in order. Should a key have changed type since it was
   * checked, the whole batch reads as empty this time.
   */
  List<Object> pipelined(List<String> batch, RedisCallback<Object> commands) {
    try {
      return redis.executePipelined(commands);
    } catch (RedisPipelineException changedMeanwhile) {
      return Collections.nCopies(batch.size(), null);
    }
  }

  /**
   * The names of the keys that match, each once: on a Redis Cluster from every master that serves
   * slots, else from the one Redis.
   */
  List<String> scan(String pattern) {
    ScanOptions options = ScanOptions.scanOptions().match(pattern).count(1000).build();
    Set<String> keys = new LinkedHashSet<>();
    Boolean cluster =
        redis.execute(
            (RedisCallback<Boolean>)
                connection -> {
                  if (!(connection instanceof RedisClusterConnection nodes)) {
                    return false;
                  }
                  for (RedisClusterNode master : mastersServingEverySlot(nodes)) {
                    try (Cursor<byte[]> cursor = nodes.scan(master, options)) {
                      cursor.forEachRemaining(key -> keys.add(text(key)));
                    }
                  }
                  return true;
                });
    if (!Boolean.TRUE.equals(cluster)) {
      try (Cursor<String> cursor = redis.scan(options)) {
        cursor.forEachRemaining(keys::add);
      }
    }
    return new ArrayList<>(keys);
  }

  /**
   * The masters that serve slots, as the cluster's topology says. Fails when some slot has none:
   * the keys of that slot could not be read, and a report without them would be wrong.
   */
  static List<RedisClusterNode> mastersServingEverySlot(RedisClusterConnection cluster) {
    List<RedisClusterNode> masters = new ArrayList<>();
    BitSet served = new BitSet(CLUSTER_SLOTS);
    for (RedisClusterNode node : cluster.clusterGetNodes()) {
      int[] slots = node.getSlotRange().getSlotsArray();
      if (node.isMaster() && slots.length > 0) {
        masters.add(node);
        for (int slot : slots) {
          served.set(slot);
        }
      }
    }
    if (served.cardinality() < CLUSTER_SLOTS) {
      throw new DataAccessResourceFailureException(
          "Redis Cluster: "
              + (CLUSTER_SLOTS - served.cardinality())
              + " of "
              + CLUSTER_SLOTS
              + " slots have no master; the gate cannot be read whole");
    }
    return masters;
  }

  static List<List<String>> batches(List<String> keys) {
    List<List<String>> batches = new ArrayList<>();
    for (int from = 0; from < keys.size(); from += BATCH) {
      batches.add(keys.subList(from, Math.min(keys.size(), from + BATCH)));
    }
    return batches;
  }

  /** A hash reply as text, empty when it is no hash (or was not read). */
  static Map<String, String> textMap(Object reply) {
    Map<String, String> hash = new HashMap<>();
    if (reply instanceof Map<?, ?> raw) {
      raw.forEach((field, value) -> hash.put(text(field), text(value)));
    }
    return hash;
  }

  /** A reply as text: deserialized already, or raw bytes when the pipeline had a failure. */
  static String text(Object value) {
    if (value instanceof byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
    return value == null ? null : value.toString();
  }

  static byte[] bytes(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }
}
