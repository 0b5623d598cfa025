package io.stockade.command.admission.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.command.CommandSideApplication;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.TestRedis;
import io.stockade.localinfra.EmbeddedRedisCluster;
import io.stockade.platform.testing.ApiClient;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The gate on a Redis Cluster of three masters rebuilt from a record of 212,500 events (see {@link
 * LargeRecord}) after a master restarted empty, and kept closed while any master may evict keys.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GateRebuildAtScaleOnClusterIntegrationTest {

  private static final String DATABASE =
      "stockade_test_scale_cluster_" + UUID.randomUUID().toString().substring(0, 8);

  private static EmbeddedRedisCluster cluster;
  private static ConfigurableApplicationContext service;
  private static StringRedisTemplate gateRedis;
  private static GateLayout layout;
  private static JdbcTemplate jdbc;
  private static ApiClient http;
  private static LargeRecord record;

  @BeforeAll
  static void startOnACluster() {
    cluster =
        EmbeddedRedisCluster.start(Path.of("target", "scale-cluster-it-" + UUID.randomUUID()), 3);
    service =
        new SpringApplicationBuilder(CommandSideApplication.class)
            .run(
                "--server.port=0",
                "--spring.data.redis.cluster.nodes=" + cluster.nodes(),
                "--stockade.local-infra.database=" + DATABASE,
                "--stockade.gate.reopen-interval=200ms",
                // The rebuild goes on from a checkpoint the test takes.
                "--stockade.gate.checkpoint.enabled=false");
    gateRedis = TestRedis.clusterTemplate(cluster.nodes(), Duration.ofSeconds(60));
    layout = service.getBean(GateLayout.class);
    jdbc = service.getBean(JdbcTemplate.class);
    http =
        new ApiClient(Integer.parseInt(service.getEnvironment().getProperty("local.server.port")));
    record = LargeRecord.append(service, UUID.randomUUID().toString().substring(0, 8));
  }

  @AfterAll
  static void stop() throws SQLException {
    if (service != null) {
      LargeRecord.dropDatabase(List.of(service), DATABASE);
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void aMasterRestartedEmptyIsRebuiltFromTheLargeRecordOnEveryMaster() {
    await().atMost(Duration.ofSeconds(60)).until(() -> ready());
    long epochBefore = epoch();
    GateCheckpointWriter writer = service.getBean(GateCheckpointWriter.class);
    GateCheckpoints.Checkpoint checkpoint =
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(200))
            .until(writer::checkpointIfDue, taken -> taken.isPresent())
            .orElseThrow();
    assertThat(checkpoint.events()).isGreaterThanOrEqualTo(record.events);

    cluster.restartEmpty(cluster.ports().indexOf(cluster.portOfSlot(layout.of(record.hot).slot())));
    ready();

    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> ready());
    assertThat(epoch()).as("rebuilt once").isEqualTo(epochBefore + 1);
    assertThat(service.getBean(GateRebuild.class).lastCheckpoint())
        .as("the rebuild went on from the checkpoint")
        .isEqualTo(checkpoint.id());
    record.assertGate(gateRedis, layout);
    record.touched.add(record.skus.get(7));
    assertThat(reserve("after", "h-after", record.hot, 2)).isEqualTo(201);
    assertThat(reserve("limit", LargeRecord.skuUser(0), record.skus.get(7), 3)).isEqualTo(409);
    assertThat(reserve("within", LargeRecord.skuUser(0), record.skus.get(7), 2)).isEqualTo(201);
    assertThat(gateRedis.opsForHash().entries(layout.counters(record.hot)))
        .containsEntry("available", String.valueOf(record.hotAvailable - 2))
        .containsEntry("reserved", String.valueOf(record.hotReserved + 2));
  }

  @Test
  @Order(2)
  void staysClosedWhileOneMasterMayEvictKeys() {
    await().atMost(Duration.ofSeconds(60)).until(() -> ready());
    int port = cluster.ports().get(2);
    RedisClusterNode master = new RedisClusterNode("127.0.0.1", port);
    try {
      config(master, "allkeys-lfu");
      for (GateLayout.Partition partition : layout.partitions()) {
        gateRedis.delete(partition.marker());
      }

      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(gate().path("details").path("reason").asString())
                      .contains(":" + port + " has maxmemory-policy allkeys-lfu"));
      assertThat(ready()).isFalse();
    } finally {
      config(master, "noeviction");
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> ready());
  }

  private static void config(RedisClusterNode node, String policy) {
    try (RedisClusterConnection connection =
        ((LettuceConnectionFactory) gateRedis.getConnectionFactory()).getClusterConnection()) {
      connection.serverCommands().setConfig(node, "maxmemory-policy", policy);
    }
  }

  private static boolean ready() {
    return http.get("/actuator/health/readiness").getStatusCode().value() == 200;
  }

  private static JsonNode gate() {
    return http.get("/actuator/health/readiness").getBody().path("components").path("gate");
  }

  private static int reserve(String id, String user, String sku, int units) {
    return http.status(
        HttpMethod.POST,
        "/api/reservations",
        "{\"reservationId\":\"cscale-"
            + id
            + "-"
            + UUID.randomUUID()
            + "\",\"userId\":\""
            + user
            + "\",\"lines\":[{\"skuId\":\""
            + sku
            + "\",\"quantity\":"
            + units
            + "}]}");
  }

  private static long epoch() {
    return jdbc.queryForObject("select epoch from gate_epoch where id = 1", Long.class);
  }
}
