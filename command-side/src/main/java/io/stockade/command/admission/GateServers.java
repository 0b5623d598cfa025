package io.stockade.command.admission;

import io.stockade.command.admission.GateLayout.Partition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToIntFunction;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The Redis servers the gate lives on, as a template reaches them: one server, or the masters of a
 * cluster. Both the placing of a new SKU's buckets (one per server, where there are enough) and a
 * rebuild (which places them again and clears every key) need to know which server holds a
 * partition, and must agree on it.
 */
final class GateServers {

  private GateServers() {}

  /**
   * Which server holds each partition: on a cluster the index of its master (masters in the order
   * of their first slot), on one Redis 0.
   */
  static ToIntFunction<Partition> servers(StringRedisTemplate redis) {
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
  static List<String> keys(StringRedisTemplate redis, String pattern) {
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
}
