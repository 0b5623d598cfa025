package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.command.CommandSideApplication;
import io.stockade.localinfra.EmbeddedRedisCluster;
import io.stockade.platform.testing.ApiClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
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
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Two command-side instances on one Redis Cluster, the clock of one of them 15 s ahead (more than
 * the sweeper's bound of 10 s): they sell a SKU in three buckets together, every buyer's bucket the
 * same, so that nearly every reservation gathers units from the other buckets while both sweepers
 * run. Exactly the stock is admitted and recorded, never more; every answer is one the contract
 * gives a sale (reserved, sold out, or the gate unable to decide now), never a sweeper giving up an
 * admission its request is still recording: moves and admissions are timed by Redis's clock.
 */
class ClockAheadOnClusterIntegrationTest {

  private static final String DATABASE = "stockade_test_clock_ahead";
  private static final Duration AHEAD = Duration.ofSeconds(15);

  /** The contract's answers to a reservation during a sale. */
  private static final String RESERVED = "201";

  private static final String SOLD_OUT = "409 insufficient-stock";
  private static final String GATE_UNAVAILABLE = "503 gate-unavailable";

  private static EmbeddedRedisCluster cluster;
  private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();
  private static StringRedisTemplate gateRedis;
  private static GateLayout layout;
  private static JdbcTemplate jdbc;

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void startAnInstanceOnTimeAndOneAhead() {
    cluster = EmbeddedRedisCluster.start(Path.of("target", "clock-ahead-" + UUID.randomUUID()), 3);
    for (Duration offset : List.of(Duration.ZERO, AHEAD)) {
      instances.add(
          new SpringApplicationBuilder(CommandSideApplication.class)
              .initializers(
                  context ->
                      ((GenericApplicationContext) context)
                          .registerBean(
                              "clockOfThisInstance",
                              Clock.class,
                              () -> Clock.offset(Clock.systemUTC(), offset),
                              definition -> definition.setPrimary(true)))
              .run(
                  "--server.port=0",
                  "--spring.data.redis.cluster.nodes=" + cluster.nodes(),
                  "--stockade.local-infra.database=" + DATABASE,
                  "--stockade.recovery.enabled=true",
                  "--stockade.recovery.unrecorded-after=10s",
                  "--stockade.recovery.interval=20ms"));
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
  void theInstanceAheadRunsOnTheClockGiven() {
    Clock ahead = instances.get(1).getBean(Clock.class);
    assertThat(Duration.between(Clock.systemUTC().instant(), ahead.instant()))
        .isGreaterThan(AHEAD.minusSeconds(1));
  }

  @Test
  void aSaleInBucketsOverAnInstanceAheadAdmitsExactlyTheStock() throws Exception {
    String sku = "ahead-" + run;
    int stock = 240;
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                http(0)
                    .send(
                        HttpMethod.PUT,
                        "/api/skus/" + sku,
                        "{\"initialStock\": " + stock + ", \"buckets\": 3}")
                    .getStatusCode()
                    .value(),
            status -> status == 201);
    AtomicInteger sent = new AtomicInteger();
    Map<String, Integer> statuses = new ConcurrentHashMap<>();
    ExecutorService threads = Executors.newFixedThreadPool(8);
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      workers.add(
          threads.submit(
              () -> {
                for (int n = sent.incrementAndGet(); n <= 2 * stock; n = sent.incrementAndGet()) {
                  statuses.merge(reserve(n % 2, sku, n), 1, Integer::sum);
                }
              }));
    }
    for (Future<?> worker : workers) {
      worker.get(300, TimeUnit.SECONDS);
    }
    threads.shutdown();
    assertThat(statuses.keySet())
        .as("the answers of the sale, %s", statuses)
        .isSubsetOf(RESERVED, SOLD_OUT, GATE_UNAVAILABLE);

    // Units on their way between buckets when the sale ended arrive: sell them too.
    int more = 2 * stock;
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> pending() == 0 && moving() == 0 && bucketTotal(sku, "outgoing") == 0);
    while (bucketTotal(sku, "available") > 0) {
      statuses.merge(reserve(0, sku, ++more), 1, Integer::sum);
      assertThat(more).as("the remaining stock sells").isLessThan(4 * stock);
    }

    assertThat(bucketTotal(sku, "reserved")).as("reserved over the buckets").isEqualTo(stock);
    assertThat(bucketTotal(sku, "available")).isZero();
    assertThat(statuses.keySet()).isSubsetOf(RESERVED, SOLD_OUT, GATE_UNAVAILABLE);
    assertThat(statuses.get(RESERVED)).as("reservations admitted").isEqualTo(stock);
    assertThat(recorded(sku)).as("reservations recorded").isEqualTo(stock);
  }

  /**
   * The answer to a reservation of one unit by the n-th buyer, all in the SKU's first bucket: its
   * status, and for a problem its type's code.
   */
  private String reserve(int instance, String sku, int n) {
    String user = userOfFirstBucket(n);
    String body =
        "{\"reservationId\":\"C-"
            + run
            + "-"
            + n
            + "\",\"userId\":\""
            + user
            + "\",\"lines\":[{\"skuId\":\""
            + sku
            + "\",\"quantity\":1}]}";
    ResponseEntity<JsonNode> answer =
        http(instance).send(HttpMethod.POST, "/api/reservations", body);
    String status = String.valueOf(answer.getStatusCode().value());
    JsonNode type = answer.getBody() == null ? null : answer.getBody().get("type");
    return answer.getStatusCode().is2xxSuccessful() || type == null
        ? status
        : status + " " + type.asString().substring(type.asString().lastIndexOf('/') + 1);
  }

  private String userOfFirstBucket(int n) {
    for (int suffix = 0; ; suffix++) {
      String user = "u-" + run + "-" + n + "-" + suffix;
      if (GateLayout.bucketOf(user, 3) == 0) {
        return user;
      }
    }
  }

  private static ApiClient http(int instance) {
    return new ApiClient(
        Integer.parseInt(
            instances.get(instance).getEnvironment().getProperty("local.server.port")));
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

  private static long pending() {
    long pending = 0;
    for (GateLayout.Partition partition : layout.partitions()) {
      Long size = gateRedis.opsForZSet().size(partition.pending());
      pending += size == null ? 0 : size;
    }
    return pending;
  }

  private static long moving() {
    long moving = 0;
    for (GateLayout.Partition partition : layout.partitions()) {
      Long size = gateRedis.opsForZSet().size(partition.transfers());
      moving += size == null ? 0 : size;
    }
    return moving;
  }

  /** Reservations of the SKU the event store holds, none of them abandoned. */
  private static int recorded(String sku) {
    return jdbc.queryForObject(
        "select count(*) from domain_event_entry where payload_type like '%.StockReserved'"
            + " and convert(payload using utf8mb4) like ?",
        Integer.class, "%\"skuId\":\"" + sku + "\"%");
  }
}
