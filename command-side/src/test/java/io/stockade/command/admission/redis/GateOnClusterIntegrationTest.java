package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.CommandSideApplication;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.Reserving;
import io.stockade.localinfra.EmbeddedRedisCluster;
import io.stockade.platform.testing.ApiClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Two command-side instances on one Redis Cluster of three masters and one database, through the
 * HTTP API: a flash sale over both admits exactly the stock, a reservation across masters is all or
 * nothing, an admission never recorded is given back in every partition it took, and a master that
 * restarts empty closes the gate until it is rebuilt from the events.
 */
class GateOnClusterIntegrationTest {

  private static final String DATABASE = "stockade_test_cluster";

  private static EmbeddedRedisCluster cluster;
  private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();
  private static StringRedisTemplate gateRedis;
  private static GateLayout layout;
  private static JdbcTemplate jdbc;

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void startTwoInstancesOnACluster() {
    cluster = EmbeddedRedisCluster.start(Path.of("target", "cluster-it-" + UUID.randomUUID()), 3);
    for (int i = 0; i < 2; i++) {
      instances.add(
          new SpringApplicationBuilder(CommandSideApplication.class)
              .run(
                  "--server.port=0",
                  "--spring.data.redis.cluster.nodes=" + cluster.nodes(),
                  "--stockade.local-infra.database=" + DATABASE,
                  "--stockade.recovery.enabled=true",
                  "--stockade.recovery.unrecorded-after=2s",
                  "--stockade.recovery.interval=500ms"));
    }
    gateRedis = instances.get(0).getBean(StringRedisTemplate.class);
    layout = instances.get(0).getBean(GateLayout.class);
    jdbc = instances.get(0).getBean(JdbcTemplate.class);
  }

  @AfterAll
  static void stop() {
    instances.forEach(ConfigurableApplicationContext::close);
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void theGateSpreadsItsPartitionsOverTheMasters() {
    assertThat(layout.partitions()).hasSize(GateConfiguration.CLUSTER_PARTITIONS);
    assertThat(
            layout.partitions().stream().map(p -> cluster.portOfSlot(p.slot())).distinct().count())
        .isEqualTo(3);
  }

  @Test
  void aFlashSaleOverBothInstancesAdmitsExactlyTheStock() throws Exception {
    String sku = register("hot-" + run, 60);
    AtomicInteger sent = new AtomicInteger();
    Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
    ExecutorService threads = Executors.newFixedThreadPool(8);
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      workers.add(
          threads.submit(
              () -> {
                for (int n = sent.incrementAndGet(); n <= 240; n = sent.incrementAndGet()) {
                  int status =
                      reserve(n % 2, "F-" + run + "-" + n, "u-" + n, Map.of(sku, 1))
                          .getStatusCode()
                          .value();
                  statuses.merge(status, 1, Integer::sum);
                }
              }));
    }
    for (Future<?> worker : workers) {
      worker.get(120, TimeUnit.SECONDS);
    }
    threads.shutdown();

    assertThat(statuses).containsEntry(201, 60).containsEntry(409, 180).hasSize(2);
    assertThat(counters(sku))
        .containsEntry("available", "0")
        .containsEntry("reserved", "60")
        .containsEntry("sold", "0");
    assertThat(recorded(sku)).isEqualTo(60);
  }

  @Test
  void aReservationAcrossMastersIsAllOrNothing() {
    List<String> skus = TestRedis.skusOnEveryMaster(cluster, layout, run + "-across");
    register(skus.get(0), 5);
    register(skus.get(1), 5);
    register(skus.get(2), 1);

    ResponseEntity<JsonNode> refused =
        reserve(0, "A-" + run, "u-1", Map.of(skus.get(0), 2, skus.get(1), 2, skus.get(2), 2));

    assertThat(refused.getStatusCode().value()).isEqualTo(409);
    assertThat(refused.getBody().toString()).contains("insufficient-stock").contains(skus.get(2));
    assertThat(skus.stream().map(sku -> counters(sku).get("available")))
        .containsExactly("5", "5", "1");
    assertThat(pending()).isZero();

    String id = "B-" + run;
    assertThat(
            reserve(1, id, "u-1", Map.of(skus.get(0), 2, skus.get(1), 2, skus.get(2), 1))
                .getStatusCode()
                .value())
        .isEqualTo(201);
    assertThat(
            http(0)
                .send(HttpMethod.POST, "/api/reservations/" + id + "/confirm", "")
                .getStatusCode()
                .value())
        .isEqualTo(200);
    assertThat(skus.stream().map(sku -> counters(sku).get("sold"))).containsExactly("2", "2", "1");
    assertThat(skus.stream().map(sku -> counters(sku).get("reserved"))).containsOnly("0");
  }

  /**
   * "Gate yes, event no" across partitions: the gate admits a reservation on two masters whose
   * event is never stored (as if the request's process died). The sweepers of the two instances
   * abandon it and give both parts back.
   */
  @Test
  void anAdmissionNeverRecordedIsGivenBackInEveryPartition() {
    List<String> skus = TestRedis.skusOnEveryMaster(cluster, layout, run + "-unrecorded");
    register(skus.get(0), 5);
    register(skus.get(2), 5);
    String id = "U-" + run;
    Reserving gate = instances.get(1).getBean(Reserving.class);

    AdmissionDecision decision =
        gate.reserve(
            new Admission(
                id,
                "u-1",
                List.of(new ReservationLine(skus.get(0), 2), new ReservationLine(skus.get(2), 3)),
                Duration.ofMinutes(15),
                Instant.now()));
    assertThat(decision).isInstanceOf(AdmissionDecision.Admitted.class);
    assertThat(counters(skus.get(2))).containsEntry("available", "2");

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(counters(skus.get(0))).containsEntry("available", "5");
              assertThat(counters(skus.get(2))).containsEntry("available", "5");
              assertThat(pending()).isZero();
            });
    assertThat(
            jdbc.queryForObject(
                "select count(*) from domain_event_entry where aggregate_identifier = ?"
                    + " and payload_type like '%.ReservationAbandoned'",
                Integer.class, ReservationEvent.streamId(id)))
        .isEqualTo(1);
  }

  /**
   * A master restarted without its data: its partitions' markers are gone, so the gate admits
   * nothing there until one of the instances has rebuilt every partition from the events.
   */
  @Test
  void aMasterThatLostItsDataClosesTheGateUntilItIsRebuilt() {
    List<String> skus = TestRedis.skusOnEveryMaster(cluster, layout, run + "-lost");
    for (String sku : skus) {
      register(sku, 10);
    }
    String hot = "lost-hot-" + run;
    assertThat(
            http(0)
                .send(
                    HttpMethod.PUT,
                    "/api/skus/" + hot,
                    "{\"initialStock\": 30, \"perUserLimit\": 5, \"buckets\": 3}")
                .getBody()
                .get("buckets")
                .asInt())
        .isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      assertThat(
              reserve(
                      i % 2,
                      "L-" + run + "-" + i,
                      "u-" + i,
                      Map.of(skus.get(1), 1, skus.get(2), 1, hot, 2))
                  .getStatusCode()
                  .value())
          .isEqualTo(201);
    }
    long epochBefore = epoch();

    cluster.restartEmpty(
        cluster.ports().indexOf(cluster.portOfSlot(layout.of(skus.get(1)).slot())));

    int status =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    reserve(0, "L-" + run + "-after", "u-after", Map.of(skus.get(1), 1))
                        .getStatusCode()
                        .value(),
                answer -> answer != 503);
    assertThat(status).isEqualTo(201);
    assertThat(counters(skus.get(1)))
        .as("rebuilt from the events, then one more")
        .containsEntry("available", "6")
        .containsEntry("reserved", "4");
    assertThat(counters(skus.get(2))).containsEntry("available", "7");
    assertThat(epoch()).as("rebuilt once, by one of the two instances").isEqualTo(epochBefore + 1);
    assertThat(bucketTotal(hot, "available")).as("the hot SKU over its buckets").isEqualTo(24);
    assertThat(bucketTotal(hot, "reserved")).isEqualTo(6);
    // A reservation of before the loss is found where the rebuild put it, and ends there.
    assertThat(
            http(1)
                .send(HttpMethod.POST, "/api/reservations/L-" + run + "-1/release", "")
                .getStatusCode()
                .value())
        .isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(bucketTotal(hot, "available")).isEqualTo(26));
    assertThat(reserve(0, "L-" + run + "-limit", "u-2", Map.of(hot, 4)).getStatusCode().value())
        .as("u-2's two units held still count towards the limit of 5 after the rebuild")
        .isEqualTo(409);
  }

  /** A field of a SKU's counters summed over its buckets, as the home counters place them. */
  private static long bucketTotal(String sku, String field) {
    Object placement = gateRedis.opsForHash().get(layout.counters(sku), "buckets");
    long total = 0;
    for (GateLayout.Partition bucket : layout.buckets(String.valueOf(placement))) {
      Object value = gateRedis.opsForHash().get(bucket.counters(sku), field);
      total += value == null ? 0 : Long.parseLong(value.toString());
    }
    return total;
  }

  /** Registers a SKU; 503 (a gate still opening, or being rebuilt) is retried. */
  private static String register(String sku, int stock) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                http(0)
                    .send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": " + stock + "}")
                    .getStatusCode()
                    .value(),
            status -> status == 201 || status == 200);
    return sku;
  }

  private static ResponseEntity<JsonNode> reserve(
      int instance, String id, String user, Map<String, Integer> lines) {
    StringBuilder body =
        new StringBuilder("{\"reservationId\":\"" + id + "\",\"userId\":\"" + user + "\",");
    body.append("\"lines\":[");
    String separator = "";
    for (Map.Entry<String, Integer> line : new java.util.TreeMap<>(lines).entrySet()) {
      body.append(separator)
          .append("{\"skuId\":\"")
          .append(line.getKey())
          .append("\",\"quantity\":")
          .append(line.getValue())
          .append('}');
      separator = ",";
    }
    body.append("]}");
    return http(instance).send(HttpMethod.POST, "/api/reservations", body.toString());
  }

  private static ApiClient http(int instance) {
    return new ApiClient(
        Integer.parseInt(
            instances.get(instance).getEnvironment().getProperty("local.server.port")));
  }

  private static Map<Object, Object> counters(String sku) {
    return gateRedis.opsForHash().entries(layout.counters(sku));
  }

  private static long pending() {
    long pending = 0;
    for (GateLayout.Partition partition : layout.partitions()) {
      Long size = gateRedis.opsForZSet().size(partition.pending());
      pending += size == null ? 0 : size;
    }
    return pending;
  }

  /** Units of the SKU the event store holds as reserved (every reservation here is one unit). */
  private static int recorded(String sku) {
    return jdbc.queryForObject(
        "select count(*) from domain_event_entry where payload_type like '%.StockReserved'"
            + " and convert(payload using utf8mb4) like ?",
        Integer.class, "%\"skuId\":\"" + sku + "\"%");
  }

  private static long epoch() {
    return jdbc.queryForObject("select epoch from gate_epoch where id = 1", Long.class);
  }
}
