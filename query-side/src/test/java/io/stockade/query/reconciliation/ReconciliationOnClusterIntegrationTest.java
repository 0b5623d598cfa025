package io.stockade.query.reconciliation;

import static io.stockade.query.reconciliation.ReconciliationIntegrationTest.mismatch;
import static io.stockade.query.reconciliation.ReconciliationIntegrationTest.numbers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.cluster.SlotHash;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.localinfra.EmbeddedRedisCluster;
import io.stockade.platform.testing.ApiClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The reconciliation on a Redis Cluster of three masters (the query side configured with {@code
 * spring.data.redis.cluster.nodes} only): the gate's partitions lie on different masters, and the
 * report reads them all, through the HTTP API. A master that restarts without its data takes its
 * partitions' markers with it: the gate reads as ABSENT.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.reconciliation.in-flight-bound=10m",
      "stockade.reconciliation.interval=0s",
      "stockade.reconciliation.max-age=0s"
    })
@DirtiesContext
class ReconciliationOnClusterIntegrationTest {

  private static final EmbeddedRedisCluster CLUSTER = startCluster();

  /** One partition's tag per master, in the order of {@link EmbeddedRedisCluster#ports()}. */
  private static final List<String> TAGS = tagPerMaster();

  @DynamicPropertySource
  static void cluster(DynamicPropertyRegistry properties) {
    properties.add("spring.data.redis.cluster.nodes", CLUSTER::nodes);
  }

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private StringRedisTemplate redis;

  private ApiClient http;
  private GateFixture gate;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    gate = new GateFixture(eventStore, transaction, redis);
    // The cluster is this class's own: each test starts from an empty gate.
    CLUSTER.flushAll();
  }

  @AfterEach
  void cleanUp() {
    gate.clean();
  }

  @Test
  void theQuerySideTalksToTheCluster() {
    Boolean cluster =
        redis.execute(
            (RedisCallback<Boolean>) connection -> connection instanceof RedisClusterConnection);
    assertThat(cluster).isTrue();
    // The tags chosen do lie on three different masters.
    List<Integer> ports = new ArrayList<>();
    TAGS.forEach(tag -> ports.add(CLUSTER.portOfSlot(SlotHash.getSlot(tag))));
    assertThat(ports).doesNotHaveDuplicates().hasSize(3);
  }

  @Test
  void partitionsOnEveryMasterAreReadAsOneGate() {
    String hot = GateFixture.unique("rcc-hot");
    String plain = GateFixture.unique("rcc-plain");
    String reservation = GateFixture.unique("rcc-R");
    String admitted = GateFixture.unique("rcc-P");
    gate.append(hot, 0, new SkuRegistered(hot, 30, null));
    gate.append(plain, 0, new SkuRegistered(plain, 10, null));
    gate.append(
        reservation,
        0,
        gate.reserved(
            reservation, List.of(new ReservationLine(hot, 5), new ReservationLine(plain, 4))));
    // The hot SKU's counters on all three masters; the reservation in three parts, one per
    // partition, two of them of the hot SKU.
    gate.counters(TAGS.get(0), hot, 8, 2, 0);
    gate.counters(TAGS.get(1), hot, 10, 0, 0);
    gate.counters(TAGS.get(2), hot, 7, 3, 0);
    gate.counters(TAGS.get(1), plain, 6, 4, 0);
    gate.intent(TAGS.get(0), reservation, "RESERVED", hot + " 2");
    gate.intent(TAGS.get(1), reservation, "RESERVED", plain + " 4");
    gate.intent(TAGS.get(2), reservation, "RESERVED", hot + " 3");
    // An admission whose event is not stored yet, pending on the second master.
    gate.admit(TAGS.get(1), admitted, plain, 1);
    TAGS.forEach(tag -> gate.openMarker(tag, 5, TAGS.size()));

    JsonNode report = awaitStatus(hot, "CONSISTENT");
    assertThat(numbers(report.get("skus").get(0).get("gate"))).containsExactly(30L, 25L, 5L, 0L);
    JsonNode gateRead = report.get("gate");
    assertThat(gateRead.get("status").asString()).isEqualTo("AVAILABLE");
    assertThat(gateRead.get("marker").asString()).isEqualTo("OPEN");
    assertThat(gateRead.get("pendingAdmissions").asInt()).isEqualTo(1);
    assertThat(gateRead.get("intents").asInt()).isEqualTo(2);
    // A routine check reads the same gate without a SCAN, in the partitions the full one found on
    // every master: the hot SKU's counters on all three, the reservation's parts, the pending one.
    JsonNode routine = sku(hot);
    assertThat(routine.get("gate").get("scope").asString()).isEqualTo("CHANGED");
    assertThat(numbers(routine.get("skus").get(0).get("gate"))).containsExactly(30L, 25L, 5L, 0L);
    assertThat(routine.get("gate").get("intents").asInt()).isEqualTo(2);
    assertThat(routine.get("gate").get("pendingAdmissions").asInt()).isEqualTo(1);

    JsonNode other =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> sku(plain),
                answer ->
                    answer.has("skus")
                        && numbers(answer.get("skus").get(0).get("readModel"))
                            .equals(List.of(10L, 6L, 4L, 0L))
                        && mismatch(answer, reservation) == null);
    JsonNode line = other.get("skus").get(0);
    assertThat(line.get("status").asString()).isEqualTo("IN_FLIGHT");
    assertThat(numbers(line.get("gate"))).containsExactly(10L, 5L, 5L, 0L);
    assertThat(line.get("difference").get("inFlight").get("pendingAdmissions").asInt())
        .isEqualTo(1);
    assertThat(numbers(line.get("difference").get("unexplained"))).containsExactly(0L, 0L, 0L, 0L);
  }

  @Test
  void aMasterThatLostItsDataLeavesTheGateAbsentAndItsCountersMissing() {
    String hot = GateFixture.unique("rcc-lost");
    gate.append(hot, 0, new SkuRegistered(hot, 30, null));
    for (String tag : TAGS) {
      gate.counters(tag, hot, 10, 0, 0);
      gate.openMarker(tag, 9, TAGS.size());
    }
    JsonNode whole = awaitStatus(hot, "CONSISTENT");
    assertThat(whole.get("gate").get("marker").asString()).isEqualTo("OPEN");

    CLUSTER.restartEmpty(2);

    // Read again once the client is back on the restarted master.
    JsonNode lost =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> sku(hot),
                answer ->
                    answer.has("gate")
                        && "AVAILABLE".equals(answer.get("gate").get("status").asString()));
    assertThat(lost.get("gate").get("marker").asString()).isEqualTo("ABSENT");
    JsonNode line = lost.get("skus").get(0);
    assertThat(numbers(line.get("gate"))).containsExactly(20L, 20L, 0L, 0L);
    assertThat(line.get("status").asString()).isNotEqualTo("CONSISTENT");
  }

  private JsonNode awaitStatus(String sku, String status) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> sku(sku),
            report ->
                report.has("skus")
                    && report.get("skus").get(0).get("status").asString().equals(status));
  }

  private JsonNode sku(String sku) {
    return http.get("/api/reconciliation/skus/" + sku).getBody();
  }

  private static EmbeddedRedisCluster startCluster() {
    EmbeddedRedisCluster cluster =
        EmbeddedRedisCluster.start(
            Path.of(System.getProperty("java.io.tmpdir"), "recon-cluster-" + UUID.randomUUID()), 3);
    // Stopped when the test JVM ends, after the application context that uses it.
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
    return cluster;
  }

  /** Tags of this run, one whose slot each master serves. */
  private static List<String> tagPerMaster() {
    String run = GateFixture.newTag();
    Map<Integer, String> byPort = new LinkedHashMap<>();
    for (int i = 0; byPort.size() < CLUSTER.ports().size(); i++) {
      String tag = run + "." + i;
      byPort.putIfAbsent(CLUSTER.portOfSlot(SlotHash.getSlot(tag)), tag);
    }
    List<String> tags = new ArrayList<>();
    CLUSTER.ports().forEach(port -> tags.add(byPort.get(port)));
    return tags;
  }
}
