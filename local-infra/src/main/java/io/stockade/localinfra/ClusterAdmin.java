package io.stockade.localinfra;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * How an {@link EmbeddedRedisCluster} talks to its nodes: commands on one node, forming the cluster
 * from masters that have started, and waiting until every node reports it whole.
 */
final class ClusterAdmin {

  static final String HOST = "127.0.0.1";
  static final long POLL_MILLIS = 100;

  // Generous, for a loaded two-core machine; bounded, so that a broken start fails the test run
  // instead of hanging it.
  private static final Duration CLUSTER_OK_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

  private static final Set<String> TROUBLE_FLAGS = Set.of("fail?", "fail", "handshake", "noaddr");

  private final RedisClient admin;
  private final List<ClusterNode> nodes;

  /**
   * @param nodes the cluster's nodes, read at each call (nodes are added as they start)
   */
  ClusterAdmin(List<ClusterNode> nodes) {
    this.nodes = nodes;
    this.admin = RedisClient.create();
    // No reconnecting and no queueing: a command to a node that is down must fail at once, so
    // that the waits below poll instead of piling up commands.
    admin.setOptions(
        ClientOptions.builder()
            .autoReconnect(false)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(2)).build())
            .timeoutOptions(TimeoutOptions.enabled(COMMAND_TIMEOUT))
            .build());
  }

  void shutdown() {
    admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  private String described() {
    return nodes.stream().map(node -> HOST + ":" + node.port()).collect(Collectors.joining(","));
  }

  /** The process id of the server answering on the node's port, if one answers. */
  Optional<Long> pidAnswering(ClusterNode node) {
    try {
      String info = onNode(node, commands -> commands.info("server"));
      return Optional.ofNullable(fields(info).get("process_id")).map(Long::valueOf);
    } catch (RedisException notYet) {
      return Optional.empty();
    }
  }

  /**
   * What redis-cli --cluster create does for masters (slots, distinct epochs, then the meeting),
   * except that every pair of nodes meets: when nodes learn of each other only by gossip, the
   * cluster sometimes takes two seconds more to become ok.
   */
  void form() {
    for (ClusterNode node : nodes) {
      int[] slots = new int[node.lastSlot() - node.firstSlot() + 1];
      for (int i = 0; i < slots.length; i++) {
        slots[i] = node.firstSlot() + i;
      }
      onNode(node, commands -> commands.clusterAddSlots(slots));
      // Distinct epochs spare the nodes resolving a collision of them after the meeting.
      onNode(node, commands -> commands.clusterSetConfigEpoch(node.index() + 1L));
    }
    for (int i = 1; i < nodes.size(); i++) {
      for (ClusterNode other : nodes.subList(0, i)) {
        onNode(nodes.get(i), commands -> commands.clusterMeet(HOST, other.port()));
      }
    }
  }

  /** Waits until every node reports the whole cluster ok; throws if it does not in time. */
  void awaitClusterOk() {
    long deadline = System.nanoTime() + CLUSTER_OK_TIMEOUT.toNanos();
    String problem;
    do {
      problem =
          nodes.stream()
              .map(this::problemSeenBy)
              .flatMap(Optional::stream)
              .findFirst()
              .orElse(null);
      if (problem == null) {
        return;
      }
      sleep(POLL_MILLIS);
    } while (System.nanoTime() < deadline);
    throw new IllegalStateException(
        "The Redis Cluster on "
            + described()
            + " is not ok after "
            + CLUSTER_OK_TIMEOUT
            + ": "
            + problem);
  }

  /** What keeps the node from reporting a whole cluster, empty when nothing does. */
  private Optional<String> problemSeenBy(ClusterNode node) {
    try {
      Map<String, String> info = fields(onNode(node, RedisCommands::clusterInfo));
      if (!"ok".equals(info.get("cluster_state"))) {
        return Optional.of(node + " reports cluster_state:" + info.get("cluster_state"));
      }
      if (!String.valueOf(nodes.size()).equals(info.get("cluster_known_nodes"))) {
        return Optional.of(node + " knows " + info.get("cluster_known_nodes") + " nodes");
      }
      // ok while a link is down or a node is suspected: clients would still meet errors.
      for (String line : onNode(node, RedisCommands::clusterNodes).split("\n")) {
        String[] parts = line.trim().split(" ");
        if (parts.length < 8) {
          continue;
        }
        String flags = parts[2];
        if (!Collections.disjoint(Set.of(flags.split(",")), TROUBLE_FLAGS)) {
          return Optional.of(node + " sees " + parts[1] + " as " + flags);
        }
        if (!"connected".equals(parts[7])) {
          return Optional.of(node + " is not connected to " + parts[1]);
        }
      }
      return Optional.empty();
    } catch (RedisException e) {
      return Optional.of(node + " does not answer: " + e.getMessage());
    }
  }

  private static Map<String, String> fields(String info) {
    Map<String, String> fields = new HashMap<>();
    for (String line : info.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return fields;
  }

  /** One command on one node, on a connection of its own. */
  <T> T onNode(ClusterNode node, Function<RedisCommands<String, String>, T> command) {
    RedisURI uri = RedisURI.Builder.redis(HOST, node.port()).withTimeout(COMMAND_TIMEOUT).build();
    try (StatefulRedisConnection<String, String> connection = admin.connect(uri)) {
      return command.apply(connection.sync());
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for the Redis Cluster", e);
    }
  }
}
