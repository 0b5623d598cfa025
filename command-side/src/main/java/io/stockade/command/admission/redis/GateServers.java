package io.stockade.command.admission.redis;

import io.stockade.command.admission.redis.GateLayout.Partition;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The Redis servers the gate lives on, as a template reaches them: one server, or the masters of a
 * cluster. Both the placing of a new SKU's buckets (one per server, where there are enough) and a
 * rebuild (which places them again and clears every key) need to know which server holds a
 * partition, and must agree on it; the keeper needs to know whether they are the very processes the
 * gate was built on (their run_ids) and whether they may evict keys.
 */
public final class GateServers {

  /** The only {@code maxmemory-policy} that never evicts a key. */
  public static final String NO_EVICTION = "noeviction";

  private GateServers() {}

  /**
   * Which server holds each partition: on a cluster the index of its master (masters in the order
   * of their first slot), on one Redis 0.
   */
  public static ToIntFunction<Partition> servers(StringRedisTemplate redis) {
    if (!(redis.getConnectionFactory() instanceof LettuceConnectionFactory factory)
        || !factory.isClusterAware()) {
      return partition -> 0;
    }
    List<RedisClusterNode> masters = masters(factory);
    return partition -> {
      for (int index = 0; index < masters.size(); index++) {
        if (masters.get(index).servesSlot(partition.slot())) {
          return index;
        }
      }
      return -1;
    };
  }

  /** Every key matching {@code pattern}: on each master of a cluster, or on the one server. */
  public static List<String> keys(StringRedisTemplate redis, String pattern) {
    ScanOptions options = ScanOptions.scanOptions().match(pattern).count(1000).build();
    List<String> keys = new ArrayList<>();
    if (redis.getConnectionFactory() instanceof LettuceConnectionFactory factory
        && factory.isClusterAware()) {
      try (RedisClusterConnection cluster = factory.getClusterConnection()) {
        for (RedisClusterNode node : masters(factory)) {
          try (Cursor<byte[]> cursor = cluster.scan(node, options)) {
            cursor.forEachRemaining(key -> keys.add(new String(key, StandardCharsets.UTF_8)));
          }
        }
      }
    } else {
      try (Cursor<String> cursor = redis.scan(options)) {
        cursor.forEachRemaining(keys::add);
      }
    }
    return keys;
  }

  /**
   * The cluster's masters that serve slots, in the order of their first slot. Throws, as Redis
   * failing would, while they do not serve every slot (a master lost, a resharding under way): a
   * rebuild would miss keys and a registration place buckets blindly, so both wait for the next
   * attempt.
   */
  private static List<RedisClusterNode> masters(LettuceConnectionFactory factory) {
    List<RedisClusterNode> masters = new ArrayList<>();
    int served = 0;
    try (RedisClusterConnection cluster = factory.getClusterConnection()) {
      for (RedisClusterNode node : cluster.clusterGetNodes()) {
        int slots = node.getSlotRange().getSlotsArray().length;
        if (node.isMaster() && slots > 0) {
          masters.add(node);
          served += slots;
        }
      }
    }
    if (served != GateLayout.SLOTS) {
      throw new DataAccessResourceFailureException(
          "The cluster's masters serve " + served + " of " + GateLayout.SLOTS + " slots");
    }
    masters.sort(Comparator.comparingInt(node -> node.getSlotRange().getSlotsArray()[0]));
    return masters;
  }

  /**
   * The servers whose {@code maxmemory-policy} may evict keys, as "host:port has policy" (null when
   * none): the one server, or every master of a cluster.
   */
  public static String evictingServers(
      LettuceConnectionFactory factory, StringRedisTemplate template) {
    List<String> evicting = new ArrayList<>();
    if (!factory.isClusterAware()) {
      String policy =
          template.execute(
              (RedisCallback<String>)
                  c ->
                      evictionPolicy(
                          () -> c.serverCommands().getConfig("maxmemory-policy"),
                          () -> c.serverCommands().info("memory")));
      if (!NO_EVICTION.equals(policy)) {
        evicting.add("Redis has maxmemory-policy " + policy);
      }
    } else {
      try (RedisClusterConnection cluster = factory.getClusterConnection()) {
        for (RedisClusterNode node : cluster.clusterGetNodes()) {
          if (node.isMaster()) {
            String policy =
                evictionPolicy(
                    () -> cluster.serverCommands().getConfig(node, "maxmemory-policy"),
                    () -> cluster.serverCommands().info(node, "memory"));
            if (!NO_EVICTION.equals(policy)) {
              evicting.add(
                  "Redis "
                      + node.getHost()
                      + ":"
                      + node.getPort()
                      + " has maxmemory-policy "
                      + policy);
            }
          }
        }
      }
    }
    return evicting.isEmpty() ? null : String.join(", ", evicting);
  }

  /**
   * A server's {@code maxmemory-policy}: from CONFIG GET, or where CONFIG is disabled or renamed
   * from INFO memory.
   */
  private static String evictionPolicy(Supplier<Properties> config, Supplier<Properties> info) {
    try {
      Properties answer = config.get();
      String policy = answer == null ? null : answer.getProperty("maxmemory-policy");
      if (policy != null) {
        return policy;
      }
    } catch (RuntimeException configRefused) {
      // CONFIG renamed or disabled: INFO tells too.
    }
    Properties memory = info.get();
    String policy = memory == null ? null : memory.getProperty("maxmemory_policy");
    if (policy == null) {
      throw new DataAccessResourceFailureException(
          "Redis tells neither by CONFIG nor by INFO its maxmemory-policy");
    }
    return policy;
  }

  /**
   * The run_id of the Redis server, or for a cluster a digest of its masters' run_ids: it changes
   * when any of them restarts or a replica takes over.
   */
  public static String runId(LettuceConnectionFactory factory, StringRedisTemplate template) {
    if (!factory.isClusterAware()) {
      Properties info =
          template.execute((RedisCallback<Properties>) c -> c.serverCommands().info("server"));
      return runId(info, "Redis");
    }
    List<String> runIds = new ArrayList<>();
    try (RedisClusterConnection cluster = factory.getClusterConnection()) {
      for (RedisClusterNode node : cluster.clusterGetNodes()) {
        if (node.isMaster()) {
          runIds.add(runId(cluster.serverCommands().info(node, "server"), node.toString()));
        }
      }
    }
    Collections.sort(runIds);
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-1")
              .digest(String.join(",", runIds).getBytes(StandardCharsets.UTF_8));
      return "cluster:" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String runId(Properties info, String server) {
    String runId = info == null ? null : info.getProperty("run_id");
    if (runId == null) {
      throw new DataAccessResourceFailureException(server + " did not tell its run_id");
    }
    return runId;
  }
}
