package io.stockade.localinfra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A real Redis Cluster of three masters, as a Redis Cluster client sees it. */
class EmbeddedRedisClusterTest {

  private static final String HOST = "127.0.0.1";
  private static final Path DIR =
      Path.of("target", "redis-cluster-test", UUID.randomUUID().toString());

  private static EmbeddedRedisCluster cluster;
  private static RedisClusterClient client;
  private static StatefulRedisClusterConnection<String, String> connection;

  @BeforeAll
  static void startCluster() {
    cluster = EmbeddedRedisCluster.start(DIR.resolve("path-binary"), 3);
    client = RedisClusterClient.create(uris(cluster));
    connection = client.connect();
  }

  @AfterAll
  static void stopCluster() {
    if (connection != null) {
      connection.close();
    }
    if (client != null) {
      client.shutdown();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @BeforeEach
  void empty() {
    cluster.flushAll();
  }

  @Test
  void formsAClusterOfThreeMastersSplittingTheSlotsLikeRedisCli() {
    List<Integer> ports = cluster.ports();
    assertThat(ports).hasSize(3).doesNotHaveDuplicates();
    assertThat(cluster.nodes())
        .isEqualTo(
            "127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d", ports.get(0), ports.get(1), ports.get(2));
    for (int port : ports) {
      assertThat(node(port).clusterInfo())
          .contains("cluster_state:ok", "cluster_known_nodes:3", "cluster_size:3");
    }
    assertThat(client.getPartitions())
        .hasSize(3)
        .allMatch(partition -> partition.is(RedisClusterNode.NodeFlag.UPSTREAM));
    Map<Integer, Integer> nodeOfSlot = Map.of(0, 0, 5460, 0, 5461, 1, 10922, 1, 10923, 2, 16383, 2);
    nodeOfSlot.forEach(
        (slot, node) -> {
          assertThat(cluster.portOfSlot(slot)).as("slot %d", slot).isEqualTo(ports.get(node));
          assertThat(client.getPartitions().getPartitionBySlot(slot).getUri().getPort())
              .as("the node serving slot %d, as the cluster says", slot)
              .isEqualTo(ports.get(node));
        });
    for (int i = 0; i < 3; i++) {
      assertThat(DIR.resolve("path-binary").resolve("node-" + i).resolve("nodes.conf"))
          .isRegularFile();
    }
  }

  @Test
  void hashTagsSpreadKeysOverEveryMaster() {
    RedisAdvancedClusterCommands<String, String> redis = connection.sync();
    List<String> keys =
        IntStream.rangeClosed('a', 'z').mapToObj(c -> "{" + (char) c + "}:stock").toList();
    keys.forEach(key -> redis.set(key, key));

    Map<Integer, Set<String>> keysByPort =
        keys.stream()
            .collect(
                Collectors.groupingBy(
                    key -> cluster.portOfSlot(SlotHash.getSlot(key)), Collectors.toSet()));
    for (int port : cluster.ports()) {
      assertThat(keysByPort.get(port)).as("keys of the master on %d", port).isNotEmpty();
      assertThat(node(port).keys("*"))
          .as("what the master on %d holds", port)
          .containsExactlyInAnyOrderElementsOf(keysByPort.get(port));
    }
  }

  @Test
  void aScriptRunsOverKeysOfOneHashTagAndIsRefusedOverKeysOfTwoSlots() {
    RedisAdvancedClusterCommands<String, String> redis = connection.sync();
    String script =
        "redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[1]);"
            + " return redis.call('GET', KEYS[2])";
    String sameTag = "{" + tagOn(0) + "}";

    String result =
        redis.eval(
            script, ScriptOutputType.VALUE, new String[] {sameTag + ":1", sameTag + ":2"}, "v");
    assertThat(result).isEqualTo("v");
    assertThat(redis.get(sameTag + ":1")).isEqualTo("v");

    String otherTag = "{" + tagOn(1) + "}";
    assertThat(SlotHash.getSlot(otherTag)).isNotEqualTo(SlotHash.getSlot(sameTag));
    assertThatThrownBy(
            () ->
                redis.eval(
                    script,
                    ScriptOutputType.VALUE,
                    new String[] {sameTag + ":3", otherTag + ":3"},
                    "v"))
        .isInstanceOf(RedisCommandExecutionException.class)
        .hasMessageContaining("CROSSSLOT");
    assertThat(redis.exists(sameTag + ":3", otherTag + ":3")).isZero();
  }

  @Test
  void aNodeRestartedEmptyLosesItsKeysOnlyAndKeepsItsSlots() {
    RedisAdvancedClusterCommands<String, String> redis = connection.sync();
    List<String> keys = IntStream.range(0, 3).mapToObj(i -> "{" + tagOn(i) + "}:kept").toList();
    for (int i = 0; i < 3; i++) {
      redis.set(keys.get(i), "value " + i);
    }
    long pidBefore = pid(cluster.ports().get(1));

    cluster.restartEmpty(1);

    assertThat(pid(cluster.ports().get(1))).isNotEqualTo(pidBefore);
    for (int port : cluster.ports()) {
      assertThat(node(port).clusterInfo()).contains("cluster_state:ok", "cluster_known_nodes:3");
    }
    assertThat(redis.get(keys.get(0))).isEqualTo("value 0");
    assertThat(redis.get(keys.get(1))).isNull();
    assertThat(redis.get(keys.get(2))).isEqualTo("value 2");
    assertThat(node(cluster.ports().get(1)).dbsize()).isZero();

    client.refreshPartitions();
    int slot = SlotHash.getSlot(keys.get(1));
    assertThat(client.getPartitions().getPartitionBySlot(slot).getUri().getPort())
        .isEqualTo(cluster.ports().get(1));
    redis.set(keys.get(1), "written again");
    assertThat(node(cluster.ports().get(1)).get(keys.get(1))).isEqualTo("written again");
  }

  @Test
  void refusesAFolderHoldingAnEarlierCluster() {
    assertThatThrownBy(() -> EmbeddedRedisCluster.start(DIR.resolve("path-binary"), 3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("nodes.conf");
  }

  @Test
  void theBinaryBundledByEmbeddedRedisFormsAClusterTooAndClosingStopsIt() throws Exception {
    Path bundled = EmbeddedRedisCluster.bundledBinary();
    List<Integer> ports;
    try (EmbeddedRedisCluster other =
            EmbeddedRedisCluster.start(DIR.resolve("bundled-binary"), 3, bundled);
        RedisClusterClientHandle handle = new RedisClusterClientHandle(other)) {
      ports = other.ports();
      assertThat(ports).doesNotContainAnyElementsOf(cluster.ports());
      // The node connections belong to the cluster connection, which closes them.
      assertThat(handle.connection.getConnection(HOST, ports.get(0)).sync().info("server"))
          .contains("executable:" + bundled);
      for (int i = 0; i < 3; i++) {
        String key = "{" + tagOn(other, i) + "}:bundled";
        handle.connection.sync().set(key, "yes");
        assertThat(handle.connection.getConnection(HOST, ports.get(i)).sync().get(key))
            .isEqualTo("yes");
      }
    }
    for (int port : ports) {
      assertThat(LocalInfrastructure.answers(HOST, port)).as("port %d after close", port).isFalse();
    }
    assertThat(Files.readString(DIR.resolve("bundled-binary/node-0/redis.log")))
        .as("the node's log")
        .contains("Ready to accept connections");
  }

  /** A hash tag whose slot the master {@code nodeIndex} serves. */
  private static String tagOn(int nodeIndex) {
    return tagOn(cluster, nodeIndex);
  }

  private static String tagOn(EmbeddedRedisCluster on, int nodeIndex) {
    int port = on.ports().get(nodeIndex);
    return IntStream.range(0, 10_000)
        .mapToObj(i -> "t" + i)
        .filter(tag -> on.portOfSlot(SlotHash.getSlot(tag)) == port)
        .findFirst()
        .orElseThrow();
  }

  private static RedisCommands<String, String> node(int port) {
    return connection.getConnection(HOST, port).sync();
  }

  private static long pid(int port) {
    return Long.parseLong(
        node(port)
            .info("server")
            .lines()
            .filter(line -> line.startsWith("process_id:"))
            .findFirst()
            .orElseThrow()
            .substring("process_id:".length())
            .trim());
  }

  private static List<RedisURI> uris(EmbeddedRedisCluster of) {
    return of.ports().stream().map(port -> RedisURI.create(HOST, port)).toList();
  }

  /** A cluster client of its own, closed with the cluster of the same try. */
  private static final class RedisClusterClientHandle implements AutoCloseable {
    private final RedisClusterClient client;
    private final StatefulRedisClusterConnection<String, String> connection;

    RedisClusterClientHandle(EmbeddedRedisCluster of) {
      client = RedisClusterClient.create(uris(of));
      connection = client.connect();
    }

    @Override
    public void close() {
      connection.close();
      client.shutdown();
    }
  }
}
