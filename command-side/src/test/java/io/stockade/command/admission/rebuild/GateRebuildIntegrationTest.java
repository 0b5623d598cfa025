package io.stockade.command.admission.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.command.CommandSideApplication;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
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
 * Redis is a filter that can be rebuilt: two command-side instances on a Redis of the test's own,
 * which comes back from restarts with an older copy of its data, and with none. Neither instance
 * admits on those counters; one rebuilds the gate from the event store while the other waits, and
 * the gate's counters then equal what the events say. Nothing is sold twice.
 */
class GateRebuildIntegrationTest {

  private static final String DATABASE = "stockade_test_rebuild";

  private static Path data;
  private static EmbeddedRedis redis;
  private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();
  private static StringRedisTemplate gateRedis;
  private static JdbcTemplate jdbc;

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void startTwoInstances() throws IOException {
    data =
        Files.createTempDirectory(
            Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath(), "rebuild-redis");
    redis = EmbeddedRedis.start(data);
    for (int i = 0; i < 2; i++) {
      instances.add(
          new SpringApplicationBuilder(CommandSideApplication.class)
              .run(
                  "--server.port=0",
                  "--spring.data.redis.host=127.0.0.1",
                  "--spring.data.redis.port=" + redis.port(),
                  "--stockade.local-infra.database=" + DATABASE,
                  "--stockade.recovery.enabled=true",
                  "--stockade.recovery.unrecorded-after=2s",
                  "--stockade.recovery.interval=500ms"));
    }
    gateRedis = instances.get(0).getBean(StringRedisTemplate.class);
    jdbc = instances.get(0).getBean(JdbcTemplate.class);
    // Every write on disk at once: a copy of the append-only file is the data of that moment.
    gateRedis.execute(
        (org.springframework.data.redis.core.RedisCallback<Object>)
            c -> {
              c.serverCommands().setConfig("appendfsync", "always");
              return null;
            });
  }

  @AfterAll
  static void stop() {
    instances.forEach(ConfigurableApplicationContext::close);
    if (redis != null) {
      redis.stop();
    }
  }

  @Test
  void aRedisBackWithOlderDataAdmitsNothingUntilRebuiltFromTheEvents() throws Exception {
    String sku = register("old", 30);
    assertThat(reserveAll(sku, 10)).isEqualTo(10);
    // A rate limit's bucket under the gate's prefix: not the gate's, so a rebuild leaves it.
    String bucket = "stockade:ratelimit:user:{u-" + run + "}";
    gateRedis.opsForHash().putAll(bucket, Map.of("tokens", "0", "at", "1"));
    gateRedis.expire(bucket, Duration.ofMinutes(10));
    Path snapshot = data.resolve("snapshot-" + run);
    Files.copy(data.resolve("appendonly.aof"), snapshot);
    assertThat(reserveAll(sku, 20)).isEqualTo(20);
    assertThat(gate(sku)).containsEntry("available", "0");
    long epochBefore = epoch();

    redis.stop();
    Files.copy(snapshot, data.resolve("appendonly.aof"), StandardCopyOption.REPLACE_EXISTING);
    // Back with 20 units it has already given out, and the gate's marker of the current epoch.
    redis.start();

    Load load = loadUntilSoldOut(sku);

    assertThat(load.admitted.get()).as("admitted after the restart").isZero();
    assertThat(reserved(sku)).isEqualTo(30);
    assertThat(gate(sku)).containsEntry("available", "0").containsEntry("reserved", "30");
    assertThat(epoch()).as("rebuilt once, by one of the two instances").isEqualTo(epochBefore + 1);
    assertThat(gateRedis.opsForHash().entries(bucket))
        .as("a rate limit's bucket, after the rebuild")
        .isEqualTo(Map.of("tokens", "0", "at", "1"));
  }

  @Test
  void aRedisRestartedEmptyDuringALoadIsRebuiltAndNothingIsSoldTwice() throws Exception {
    String earlier = register("earlier", 12);
    assertThat(reserveAll(earlier, 5)).isEqualTo(5);
    String sku = register("hot", 40);
    long epochBefore = epoch();

    // The load waits once 10 are admitted, until Redis is down: it cannot sell the rest first (8
    // threads sold all 40 within Awaitility's first poll once, and met no 503).
    Load load = new Load(sku);
    CountDownLatch redisDown = load.pauseOnceAdmitted(10);
    load.start();
    await().atMost(Duration.ofSeconds(60)).until(() -> load.admitted.get() >= 10);
    redis.stop();
    redisDown.countDown();
    await().atMost(Duration.ofSeconds(60)).until(() -> load.statuses.containsKey(503));
    try (Stream<Path> files = Files.list(data)) {
      files.forEach(GateRebuildIntegrationTest::delete);
    }
    redis.start();
    load.awaitSoldOut();

    assertThat(load.statuses).containsKey(503);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              int recorded = reserved(sku);
              assertThat(recorded).isEqualTo(load.admitted.get()).isLessThanOrEqualTo(40);
              assertThat(gate(sku))
                  .containsEntry("reserved", String.valueOf(recorded))
                  .containsEntry("available", String.valueOf(40 - recorded));
              assertThat(gateRedis.opsForZSet().size("stockade:{g0}:gate:pending")).isZero();
            });
    assertThat(reserved(sku)).as("sold out: no unit lost either").isEqualTo(40);
    assertThat(gate(earlier))
        .as("a SKU untouched by the load, rebuilt from its events")
        .containsEntry("available", "7")
        .containsEntry("reserved", "5")
        .containsEntry("sold", "0");
    assertThat(epoch()).as("rebuilt once, by one of the two instances").isEqualTo(epochBefore + 1);
  }

  @Test
  void aGateRebuiltAfterExtensionsAndPartialConfirmationsHoldsWhatTheyLeft() throws Exception {
    String sku = register("partly", 10);
    String other = register("partly-other", 10);
    ApiClient http = http(0);
    String id = "P-" + run;
    String body =
        "{\"reservationId\":\""
            + id
            + "\",\"userId\":\"u-"
            + run
            + "\",\"holdSeconds\":60,\"lines\":[{\"skuId\":\""
            + sku
            + "\",\"quantity\":3},{\"skuId\":\""
            + other
            + "\",\"quantity\":2}]}";
    assertThat(http.send(HttpMethod.POST, "/api/reservations", body).getStatusCode().value())
        .isEqualTo(201);
    String extended =
        http.send(HttpMethod.POST, "/api/reservations/" + id + "/extend", "{\"holdSeconds\": 900}")
            .getBody()
            .get("expiresAt")
            .asString();
    String held = "H-" + run;
    assertThat(
            http.send(HttpMethod.POST, "/api/reservations", body.replace(id, held))
                .getStatusCode()
                .value())
        .isEqualTo(201);
    http.send(HttpMethod.POST, "/api/reservations/" + held + "/extend", "{\"holdSeconds\": 900}");
    assertThat(
            http.send(
                    HttpMethod.POST,
                    "/api/reservations/" + id + "/confirm",
                    "{\"lines\":[{\"skuId\":\"" + sku + "\",\"quantity\":1}]}")
                .getStatusCode()
                .value())
        .isEqualTo(200);
    Map<Object, Object> confirmedIntent =
        gateRedis.opsForHash().entries("stockade:{g0}:reservation:" + id);
    Map<Object, Object> heldIntent =
        gateRedis.opsForHash().entries("stockade:{g0}:reservation:" + held);
    Map<Object, Object> skuBefore = gate(sku);
    Map<Object, Object> otherBefore = gate(other);
    Map<Object, Object> holdersBefore =
        gateRedis.opsForHash().entries("stockade:{g0}:sku:" + sku + ":holders");

    redis.stop();
    try (Stream<Path> files = Files.list(data)) {
      files.forEach(GateRebuildIntegrationTest::delete);
    }
    redis.start();
    // A retry of the held reservation: 503 until rebuilt, then answered from the rebuilt intent.
    ResponseEntity<JsonNode> retry =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> http.send(HttpMethod.POST, "/api/reservations", body.replace(id, held)),
                answer -> answer.getStatusCode().value() != 503);

    assertThat(retry.getStatusCode().value())
        .as("the same reservation, extended since: still a retry")
        .isEqualTo(200);
    assertThat(retry.getBody().get("expiresAt").asString())
        .isEqualTo(
            Instant.ofEpochMilli(Long.parseLong((String) heldIntent.get("expiresAt"))).toString());
    for (String field : List.of("available", "reserved", "sold")) {
      assertThat(gate(sku).get(field)).as(field).isEqualTo(skuBefore.get(field));
      assertThat(gate(other).get(field)).as(field).isEqualTo(otherBefore.get(field));
    }
    assertThat(gateRedis.opsForHash().entries("stockade:{g0}:sku:" + sku + ":holders"))
        .isEqualTo(holdersBefore);
    Map<Object, Object> rebuilt = gateRedis.opsForHash().entries("stockade:{g0}:reservation:" + id);
    for (String field : List.of("state", "lines", "confirmed", "fingerprint", "expiresAt")) {
      assertThat(rebuilt.get(field)).as(field).isEqualTo(confirmedIntent.get(field));
    }
    assertThat(rebuilt.get("confirmed")).isEqualTo(sku + " 1 " + other + " 0");
    assertThat(Instant.ofEpochMilli(Long.parseLong((String) rebuilt.get("expiresAt"))).toString())
        .isEqualTo(extended);
  }

  @Test
  void sixThousandHoldsExtendedConfirmedInPartReleasedOrLeftHeldSurviveARedisRestartedEmpty()
      throws Exception {
    int holds = 6_000;
    String sku = register("crowd", 8_000);
    // Every fourth hold is of two units: 1,500 x 2 + 4,500 x 1 = 7,500 units held, 500 left.
    inParallel(
        holds,
        i -> {
          String body =
              "{\"reservationId\":\"C-"
                  + run
                  + "-"
                  + i
                  + "\",\"userId\":\"c-"
                  + run
                  + "-"
                  + i
                  + "\",\"lines\":[{\"skuId\":\""
                  + sku
                  + "\",\"quantity\":"
                  + (i % 4 == 0 ? 2 : 1)
                  + "}]}";
          return send(i % 2, HttpMethod.POST, "/api/reservations", body);
        },
        201);
    // Two-unit holds confirmed in part (one unit sold, one given back), a quarter released, the
    // rest left held, with an extension for half of them.
    inParallel(
        holds,
        i ->
            switch (i % 4) {
              case 0 ->
                  send(
                      i % 2,
                      HttpMethod.POST,
                      "/api/reservations/C-" + run + "-" + i + "/confirm",
                      "{\"lines\":[{\"skuId\":\"" + sku + "\",\"quantity\":1}]}");
              case 2 ->
                  send(
                      i % 2,
                      HttpMethod.POST,
                      "/api/reservations/C-" + run + "-" + i + "/release",
                      "{\"reason\":\"CANCELLED\"}");
              default ->
                  i % 8 == 3
                      ? 200
                      : send(
                          i % 2,
                          HttpMethod.POST,
                          "/api/reservations/C-" + run + "-" + i + "/extend",
                          "{\"holdSeconds\":1800}");
            },
        200);
    int sold = 1_500;
    int held = 3_000;
    int left = 8_000 - sold - held;
    // Confirmations and releases reach the gate after their events: wait until it holds them all.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(gate(sku))
                    .containsEntry("available", String.valueOf(left))
                    .containsEntry("reserved", String.valueOf(held))
                    .containsEntry("sold", String.valueOf(sold)));
    String extendedHold = "C-" + run + "-1";
    String extendedUntil =
        (String)
            gateRedis.opsForHash().get("stockade:{g0}:reservation:" + extendedHold, "expiresAt");
    long epochBefore = epoch();

    redis.stop();
    try (Stream<Path> files = Files.list(data)) {
      files.forEach(GateRebuildIntegrationTest::delete);
    }
    redis.start();
    Load load = loadUntilSoldOut(sku);

    assertThat(load.admitted.get())
        .as("sold after the restart: exactly the units left")
        .isEqualTo(left);
    assertThat(epoch()).as("rebuilt once, by one of the two instances").isEqualTo(epochBefore + 1);
    assertThat(gate(sku))
        .containsEntry("available", "0")
        .containsEntry("reserved", String.valueOf(held + left))
        .containsEntry("sold", String.valueOf(sold));
    assertThat(gateRedis.opsForHash().get("stockade:{g0}:reservation:" + extendedHold, "expiresAt"))
        .as("an extended hold, rebuilt with its extension")
        .isEqualTo(extendedUntil);
    // A hold left over gives its units back to a rebuilt gate, and they sell again: once.
    assertThat(send(0, HttpMethod.POST, "/api/reservations/" + extendedHold + "/release", null))
        .isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(gate(sku)).containsEntry("available", "1"));
    assertThat(reserve(1, sku, "again-" + run, "again-" + run)).isEqualTo(201);
    assertThat(reserve(0, sku, "again2-" + run, "again2-" + run)).isEqualTo(409);
  }

  /**
   * Sends {@code count} requests from 8 threads, request {@code i} by {@code call}, each retried
   * while the gate answers 503, and checks that every one answered {@code expected}.
   */
  private static void inParallel(int count, java.util.function.IntUnaryOperator call, int expected)
      throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> answers = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        int n = i;
        answers.add(
            threads.submit(
                () ->
                    await()
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> call.applyAsInt(n), status -> status != 503)));
      }
      Map<Integer, Integer> statuses = new java.util.TreeMap<>();
      for (Future<Integer> answer : answers) {
        statuses.merge(answer.get(120, TimeUnit.SECONDS), 1, Integer::sum);
      }
      assertThat(statuses).isEqualTo(Map.of(expected, count));
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * What runs a sale survives Redis restarted empty: the rebuilt gate holds the window, the pause,
   * the limit and every adjustment the events say, with the versions of the events that set them,
   * so that the follower's late writes of older events change nothing.
   */
  @Test
  void aPausedScheduledAndAdjustedSaleSurvivesARedisRestartedEmpty() throws Exception {
    String paused = "paused-" + run;
    String scheduled = "scheduled-" + run;
    String opensAt = "2099-01-01T10:00:00Z";
    assertThat(
            send(
                0,
                HttpMethod.PUT,
                "/api/skus/" + paused,
                "{\"initialStock\": 10, \"perUserLimit\": 4}"))
        .isEqualTo(201);
    assertThat(
            send(
                0,
                HttpMethod.PUT,
                "/api/skus/" + scheduled,
                "{\"initialStock\": 10, \"sale\": {\"opensAt\": \"" + opensAt + "\"}}"))
        .isEqualTo(201);
    String reserve =
        "{\"reservationId\":\"SP-"
            + run
            + "\",\"userId\":\"u-1\",\"lines\":[{\"skuId\":\""
            + paused
            + "\",\"quantity\":2}]}";
    assertThat(send(1, HttpMethod.POST, "/api/reservations", reserve)).isEqualTo(201);
    assertThat(
            send(
                0,
                HttpMethod.POST,
                "/api/skus/" + paused + "/adjustments",
                "{\"adjustmentId\": \"A-1\", \"quantity\": -3, \"reason\": \"DAMAGED\"}"))
        .isEqualTo(201);
    assertThat(
            send(
                1,
                HttpMethod.POST,
                "/api/skus/" + paused + "/adjustments",
                "{\"adjustmentId\": \"A-2\", \"quantity\": 1, \"reason\": \"RETURNED\"}"))
        .isEqualTo(201);
    assertThat(send(1, HttpMethod.PUT, "/api/skus/" + paused + "/limit", "{\"perUserLimit\": 3}"))
        .isEqualTo(200);
    assertThat(
            send(0, HttpMethod.POST, "/api/skus/" + paused + "/pause", "{\"reason\": \"price\"}"))
        .isEqualTo(200);
    Map<Object, Object> before = gate(paused);
    Map<Object, Object> scheduledBefore = gate(scheduled);
    assertThat(before).containsEntry("available", "6").containsEntry("paused", "1");

    redis.stop();
    try (Stream<Path> files = Files.list(data)) {
      files.forEach(GateRebuildIntegrationTest::delete);
    }
    redis.start();
    ResponseEntity<JsonNode> refused =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    http(1)
                        .send(
                            HttpMethod.POST,
                            "/api/reservations",
                            reserve.replace("SP-" + run, "SP2-" + run).replace("u-1", "u-2")),
                answer -> answer.getStatusCode().value() != 503);

    assertThat(refused.getStatusCode().value()).as("still paused").isEqualTo(409);
    assertThat(refused.getBody().get("type").asString()).endsWith("/sale-paused");
    for (String field :
        List.of(
            "available",
            "reserved",
            "sold",
            "limit",
            "limitVersion",
            "paused",
            "pauseVersion",
            "scheduleVersion")) {
      assertThat(gate(paused).get(field)).as(field).isEqualTo(before.get(field));
    }
    for (String field : List.of("available", "opensAt", "scheduleVersion")) {
      assertThat(gate(scheduled).get(field)).as(field).isEqualTo(scheduledBefore.get(field));
    }
    // Each instance opens the rebuilt gate on its own: 503 until this one has.
    ResponseEntity<JsonNode> notOpen =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    http(0)
                        .send(
                            HttpMethod.POST,
                            "/api/reservations",
                            reserve.replace("SP-" + run, "SN-" + run).replace(paused, scheduled)),
                answer -> answer.getStatusCode().value() != 503);
    assertThat(notOpen.getBody().get("type").asString()).endsWith("/sale-not-open");
    // A repeat of an adjustment takes nothing again; a resume answered 200 reopens the sale.
    assertThat(
            send(
                1,
                HttpMethod.POST,
                "/api/skus/" + paused + "/adjustments",
                "{\"adjustmentId\": \"A-1\", \"quantity\": -3, \"reason\": \"DAMAGED\"}"))
        .isEqualTo(200);
    assertThat(send(1, HttpMethod.POST, "/api/skus/" + paused + "/resume", null)).isEqualTo(200);
    assertThat(gate(paused)).containsEntry("available", "6").containsEntry("paused", "0");
    assertThat(
            send(
                0,
                HttpMethod.POST,
                "/api/reservations",
                reserve.replace("SP-" + run, "SP3-" + run).replace("u-1", "u-3")))
        .isEqualTo(201);
  }

  private static int send(int instance, HttpMethod method, String path, String body) {
    return http(instance).send(method, path, body).getStatusCode().value();
  }

  /** Reservations of one unit each, sent round the instances by 8 threads until sold out. */
  private final class Load {

    final String sku;
    final AtomicInteger admitted = new AtomicInteger();
    final AtomicInteger sent = new AtomicInteger();
    final Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
    final ExecutorService threads = Executors.newFixedThreadPool(8);
    final List<Future<?>> workers = new ArrayList<>();

    /** Once set, workers wait after a 201 that brings the admitted to {@code pauseAt}. */
    volatile CountDownLatch resume;

    volatile int pauseAt;

    Load(String sku) {
      this.sku = sku;
    }

    /** Makes every worker wait, after its 201 once {@code admitted} are admitted, for the latch. */
    CountDownLatch pauseOnceAdmitted(int admitted) {
      pauseAt = admitted;
      resume = new CountDownLatch(1);
      return resume;
    }

    void start() {
      for (int t = 0; t < 8; t++) {
        workers.add(threads.submit(this::work));
      }
    }

    private void work() {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (System.nanoTime() < deadline) {
        int n = sent.incrementAndGet();
        int status = reserve(n % 2, sku, "L-" + run + "-" + n, "u-" + n);
        statuses.merge(status, 1, Integer::sum);
        if (status == 201) {
          CountDownLatch latch = resume;
          if (admitted.incrementAndGet() >= pauseAt && latch != null) {
            awaitUninterruptibly(latch);
          }
        } else if (status == 409) {
          return;
        } else if (status == 503) {
          sleep(20);
        } else {
          throw new AssertionError("Unexpected status " + status);
        }
      }
      throw new AssertionError("Not sold out in time");
    }

    void awaitSoldOut() throws Exception {
      for (Future<?> worker : workers) {
        worker.get(150, TimeUnit.SECONDS);
      }
      threads.shutdown();
    }
  }

  private Load loadUntilSoldOut(String sku) throws Exception {
    Load load = new Load(sku);
    load.start();
    load.awaitSoldOut();
    return load;
  }

  /** Registers a SKU; 503 (a gate still opening after the previous test) is retried. */
  private String register(String name, int stock) {
    String sku = name + "-" + run;
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

  /**
   * Reserves {@code count} units one by one, alternating instances, each retried with its id while
   * the gate is opening (503); returns how many got 201.
   */
  private int reserveAll(String sku, int count) {
    int admitted = 0;
    for (int i = 0; i < count; i++) {
      String id = sku + "-" + UUID.randomUUID().toString().substring(0, 8);
      int instance = i % 2;
      int status =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> reserve(instance, sku, id, "u-" + id), answer -> answer != 503);
      if (status == 201) {
        admitted++;
      }
    }
    return admitted;
  }

  private int reserve(int instance, String sku, String id, String user) {
    return http(instance)
        .send(HttpMethod.POST, "/api/reservations", ApiClient.reservation(id, user, sku, 1))
        .getStatusCode()
        .value();
  }

  private static ApiClient http(int instance) {
    return new ApiClient(
        Integer.parseInt(
            instances.get(instance).getEnvironment().getProperty("local.server.port")));
  }

  private static Map<Object, Object> gate(String sku) {
    return gateRedis.opsForHash().entries("stockade:{g0}:sku:" + sku);
  }

  /** Units of the SKU the event store holds as reserved (every reservation here is one unit). */
  private static int reserved(String sku) {
    return jdbc.queryForObject(
        "select count(*) from domain_event_entry where payload_type like '%.StockReserved'"
            + " and convert(payload using utf8mb4) like ?",
        Integer.class, "%\"skuId\":\"" + sku + "\"%");
  }

  private static long epoch() {
    return jdbc.queryForObject("select epoch from gate_epoch where id = 1", Long.class);
  }

  private static void delete(Path file) {
    try {
      if (Files.isRegularFile(file)) {
        Files.delete(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits for the latch, at most a minute (the test's own waits are bounded alike). */
  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      if (!latch.await(60, TimeUnit.SECONDS)) {
        throw new AssertionError("Not resumed within a minute");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
