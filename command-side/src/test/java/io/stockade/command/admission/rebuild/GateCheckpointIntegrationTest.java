package io.stockade.command.admission.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.command.CommandSideApplication;
import io.stockade.command.admission.redis.GateKeyDump;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateServers;
import io.stockade.command.admission.redis.TestRedis;
import io.stockade.gatekeys.GateKeyspace;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The gate's checkpoints (GateCheckpoints, GateCheckpointWriter) on a database and a Redis of the
 * test's own: a rebuild from a checkpoint taken in the middle of a seeded random workload and the
 * events after it writes the gate key for key as a rebuild from the whole record does; a checkpoint
 * that cannot be trusted is skipped for the one before it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GateCheckpointIntegrationTest {

  private static final String DATABASE =
      "stockade_test_checkpoint_" + UUID.randomUUID().toString().substring(0, 8);

  private static final long SEED = 20261207L;

  private static EmbeddedRedis redis;
  private static ConfigurableApplicationContext service;
  private static ApiClient http;
  private static StringRedisTemplate gateRedis;
  private static JdbcTemplate jdbc;
  private static GateCheckpointWriter writer;
  private static GateCheckpoints checkpoints;
  private static GateRebuild rebuild;
  private static GateLayout layout;

  @BeforeAll
  static void start() throws Exception {
    Path data =
        Files.createTempDirectory(
            Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath(), "checkpoint-redis");
    redis = EmbeddedRedis.start(data);
    service =
        new SpringApplicationBuilder(CommandSideApplication.class)
            .run(
                "--server.port=0",
                "--spring.data.redis.host=127.0.0.1",
                "--spring.data.redis.port=" + redis.port(),
                "--stockade.local-infra.database=" + DATABASE,
                // Checkpoints taken by the test only, whenever a single event came since the last.
                "--stockade.gate.checkpoint.enabled=false",
                "--stockade.gate.checkpoint.every-events=1",
                "--stockade.gate.checkpoint.keep=2",
                "--stockade.rate-limit.enabled=false");
    http = new ApiClient(service.getEnvironment().getProperty("local.server.port", Integer.class));
    gateRedis = TestRedis.template("127.0.0.1", redis.port(), Duration.ofSeconds(30));
    jdbc = service.getBean(JdbcTemplate.class);
    writer = service.getBean(GateCheckpointWriter.class);
    checkpoints = service.getBean(GateCheckpoints.class);
    rebuild = service.getBean(GateRebuild.class);
    layout = service.getBean(GateLayout.class);
  }

  @AfterAll
  static void stop() throws Exception {
    LargeRecord.dropDatabase(service == null ? List.of() : List.of(service), DATABASE);
    if (redis != null) {
      redis.stop();
    }
  }

  /**
   * Reservations of one to three lines, confirmed whole or in part, released, extended; stock
   * adjusted and replenished, sales paused and resumed, limits changed: a checkpoint halfway, and
   * the second half working on the reservations the checkpoint holds live.
   */
  @Test
  @Order(1)
  void aRebuildFromACheckpointAndTheEventsAfterItWritesWhatAFoldOfTheWholeRecordWrites() {
    Workload workload = new Workload(new Random(SEED));
    workload.run(300);
    GateCheckpoints.Checkpoint halfway = takeCheckpoint();
    assertThat(halfway.events()).isGreaterThan(150);
    writer.check();
    MeterRegistry meters = service.getBean(MeterRegistry.class);
    assertThat(meters.get("stockade.gate.checkpoint.position").gauge().value())
        .isEqualTo(halfway.position());
    assertThat(meters.get("stockade.gate.checkpoint.age").gauge().value()).isBetween(0.0, 60.0);
    workload.run(300);
    assertThat(workload.endedAfterCheckpoint)
        .as("the second half ends reservations the checkpoint holds live")
        .isGreaterThan(20);

    Map<String, String> fromCheckpoint = rebuildAndDump();
    assertThat(rebuild.lastCheckpoint()).isEqualTo(halfway.id());

    jdbc.update("delete from gate_checkpoint_part");
    jdbc.update("delete from gate_checkpoint");
    Map<String, String> fromTheWholeRecord = rebuildAndDump();
    assertThat(rebuild.lastCheckpoint()).isEqualTo(-1);

    assertThat(fromTheWholeRecord.keySet())
        .as("SKUs' counters, holders, replenishments, adjustments; intents")
        .hasSizeGreaterThan(100);
    assertSameKeys(fromCheckpoint, fromTheWholeRecord);
  }

  /**
   * A checkpoint whose parts do not match their hash, of another layout, or of another event store
   * is skipped for the one before it; with none left, the rebuild folds the whole record.
   */
  @Test
  @Order(2)
  void aCheckpointThatCannotBeTrustedIsSkippedForTheOneBeforeIt() {
    Workload workload = new Workload(new Random(SEED + 1));
    workload.run(20);
    GateCheckpoints.Checkpoint first = takeCheckpoint();
    workload.run(20);
    GateCheckpoints.Checkpoint second = takeCheckpoint();
    workload.run(20);
    GateCheckpoints.Checkpoint third = takeCheckpoint();
    assertThat(ids()).as("two kept").containsExactly(third.id(), second.id());
    assertThat(newest()).contains(third.id());

    jdbc.update(
        "update gate_checkpoint_part set data = concat(data, 'x') where checkpoint_id = ?",
        third.id());
    assertThat(newest()).as("its parts changed").contains(second.id());
    jdbc.update("update gate_checkpoint set layout = layout + 1 where id = ?", second.id());
    assertThat(newest()).as("another layout").isEmpty();
    jdbc.update("update gate_checkpoint set layout = layout - 1 where id = ?", second.id());
    assertThat(newest()).contains(second.id());
    jdbc.update("update gate_checkpoint set anchor_event = 'another' where id = ?", second.id());
    assertThat(newest()).as("another event store").isEmpty();

    Map<String, String> wholeRecord = rebuildAndDump();
    assertThat(rebuild.lastCheckpoint()).isEqualTo(-1);
    assertThat(wholeRecord).isNotEmpty();
    assertThat(first.id()).isLessThan(second.id());
  }

  /**
   * Checkpoints taken while three workloads run and holds expire: the newest, taken mid-run, and
   * the events after it still rebuild the gate a fold of the whole record rebuilds.
   */
  @Test
  @Order(3)
  void checkpointsTakenWhileReservationsComeAndExpireMissNothing() throws Exception {
    List<Workload> workloads = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Workload workload = new Workload(new Random(SEED + 10 + i));
      workload.shortHolds = true;
      workloads.add(workload);
    }
    ExecutorService threads = Executors.newFixedThreadPool(workloads.size());
    List<Future<?>> running = new ArrayList<>();
    AtomicBoolean stop = new AtomicBoolean();
    for (Workload workload : workloads) {
      // At least 150 operations each, and on until two checkpoints were taken meanwhile.
      running.add(
          threads.submit(
              () -> {
                for (int done = 0; done < 150 || !stop.get(); done++) {
                  workload.run(1);
                }
              }));
    }
    List<GateCheckpoints.Checkpoint> taken = new ArrayList<>();
    try {
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(50))
          .until(
              () -> {
                writer.checkpointIfDue().ifPresent(taken::add);
                return taken.size() >= 2
                    || running.stream().anyMatch(Future::isDone); // a workload failed
              });
      stop.set(true);
      for (Future<?> future : running) {
        future.get();
      }
    } finally {
      stop.set(true);
      threads.shutdownNow();
    }
    long head = jdbc.queryForObject("select max(global_index) from domain_event_entry", Long.class);
    assertThat(taken).as("checkpoints taken while the workloads ran").hasSizeGreaterThan(1);
    assertThat(taken.get(taken.size() - 1).position()).isLessThan(head);
    int expiring = workloads.stream().mapToInt(workload -> workload.expiring).sum();
    assertThat(expiring).as("holds of a second").isGreaterThan(10);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                jdbc.queryForObject(
                        "select count(*) from domain_event_entry where payload_type = ?"
                            + " and payload like '%\"EXPIRED\"%' and payload like '%\"CK-S-%'",
                        Long.class, "io.stockade.api.reservation.StockReleased")
                    == expiring);

    Map<String, String> fromCheckpoint = rebuildAndDump();
    assertThat(rebuild.lastCheckpoint()).isEqualTo(taken.get(taken.size() - 1).id());
    jdbc.update("delete from gate_checkpoint_part");
    jdbc.update("delete from gate_checkpoint");
    Map<String, String> fromTheWholeRecord = rebuildAndDump();
    assertThat(rebuild.lastCheckpoint()).isEqualTo(-1);
    assertSameKeys(fromCheckpoint, fromTheWholeRecord);
  }

  private static void assertSameKeys(Map<String, String> one, Map<String, String> other) {
    Set<String> differing = new TreeSet<>(one.keySet());
    differing.addAll(other.keySet());
    differing.removeIf(key -> Objects.equals(one.get(key), other.get(key)));
    assertThat(differing).as("keys missing from one or different").isEmpty();
  }

  private static List<Long> ids() {
    return jdbc.queryForList("select id from gate_checkpoint order by id desc", Long.class);
  }

  private static Optional<Long> newest() {
    return checkpoints
        .newest(Instant.now(), Duration.ofHours(24), Long.MAX_VALUE)
        .map(restored -> restored.checkpoint().id());
  }

  /** A checkpoint of everything stored now, once the writer's horizon has passed it. */
  private static GateCheckpoints.Checkpoint takeCheckpoint() {
    long head = jdbc.queryForObject("select max(global_index) from domain_event_entry", Long.class);
    return await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(
            writer::checkpointIfDue, taken -> taken.isPresent() && taken.get().position() >= head)
        .orElseThrow();
  }

  /** Empties Redis, waits for the gate to be rebuilt and open, and dumps every key of the gate. */
  private static Map<String, String> rebuildAndDump() {
    gateRedis.execute(
        (RedisCallback<Object>)
            connection -> {
              connection.serverCommands().flushAll();
              return null;
            });
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> http.get("/actuator/health/readiness").getStatusCode().value() == 200);
    Set<String> notCompared =
        layout.partitions().stream()
            .flatMap(
                partition ->
                    java.util.stream.Stream.of(
                        partition.marker(), partition.decisions(), partition.dropped()))
            .collect(Collectors.toSet());
    List<String> keys =
        GateServers.keys(gateRedis, GateKeyspace.PATTERN).stream()
            .filter(key -> !notCompared.contains(key))
            .filter(key -> !key.startsWith(GateKeyspace.RATE_LIMITS_PREFIX))
            .toList();
    return GateKeyDump.of(gateRedis, keys);
  }

  /** A seeded random workload through the HTTP API. */
  private static final class Workload {

    private final Random random;
    private final String run = UUID.randomUUID().toString().substring(0, 6);
    private final List<String> skus = new ArrayList<>();
    private final List<Held> live = new ArrayList<>();
    private int next;
    private int endedAfterCheckpoint;
    private boolean second;

    /** A fifth of the reservations held for a second, left to expire. */
    private boolean shortHolds;

    /** How many reservations of a second were admitted. */
    private int expiring;

    private record Held(String id, List<String> skus) {}

    Workload(Random random) {
      this.random = random;
      for (int i = 0; i < 6; i++) {
        String sku = "ck-" + run + "-" + i;
        String limit = i % 2 == 0 ? ", \"perUserLimit\": 6" : "";
        assertThat(
                http.status(
                    HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 400" + limit + "}"))
            .isEqualTo(201);
        skus.add(sku);
      }
    }

    void run(int operations) {
      for (int i = 0; i < operations; i++) {
        step();
      }
      second = true;
    }

    private void step() {
      int kind = random.nextInt(100);
      if (kind < 45 || live.isEmpty()) {
        reserve();
        return;
      }
      if (kind < 85) {
        Held held = live.remove(random.nextInt(live.size()));
        if (second) {
          endedAfterCheckpoint++;
        }
        String path = "/api/reservations/" + held.id();
        int end = random.nextInt(4);
        if (end == 0) {
          assertThat(http.status(HttpMethod.POST, path + "/confirm", "{}")).isEqualTo(200);
        } else if (end == 1) {
          String body = "{\"lines\":[{\"skuId\":\"" + held.skus().get(0) + "\",\"quantity\":1}]}";
          assertThat(http.status(HttpMethod.POST, path + "/confirm", body)).isEqualTo(200);
        } else if (end == 2) {
          assertThat(http.status(HttpMethod.POST, path + "/release", "{}")).isEqualTo(200);
        } else {
          assertThat(http.status(HttpMethod.POST, path + "/extend", "{\"holdSeconds\": 1200}"))
              .isEqualTo(200);
          live.add(held);
        }
        return;
      }
      String sku = skus.get(random.nextInt(skus.size()));
      String path = "/api/skus/" + sku;
      switch (kind % 5) {
        case 0 ->
            assertThat(
                    http.status(
                        HttpMethod.POST,
                        path + "/adjustments",
                        "{\"adjustmentId\": \"A-"
                            + next++
                            + "\", \"quantity\": "
                            + (random.nextBoolean() ? -2 : 3)
                            + ", \"reason\": \"CORRECTION\"}"))
                .isEqualTo(201);
        case 1 ->
            assertThat(
                    http.status(
                        HttpMethod.POST,
                        path + "/replenishments",
                        "{\"replenishmentId\": \"R-" + next++ + "\", \"quantity\": 5}"))
                .isBetween(200, 201);
        case 2 ->
            assertThat(http.status(HttpMethod.POST, path + "/pause", "{\"reason\": \"price\"}"))
                .isEqualTo(200);
        case 3 ->
            assertThat(http.status(HttpMethod.POST, path + "/resume", "{}")).isBetween(200, 409);
        default ->
            assertThat(
                    http.status(
                        HttpMethod.PUT,
                        path + "/limit",
                        "{\"perUserLimit\": " + (5 + random.nextInt(4)) + "}"))
                .isEqualTo(200);
      }
    }

    private void reserve() {
      boolean expires = shortHolds && random.nextInt(5) == 0;
      String id = (expires ? "CK-S-" : "CK-") + run + "-" + next++;
      int lines = 1 + random.nextInt(3);
      List<String> chosen = new ArrayList<>();
      StringBuilder body =
          new StringBuilder("{\"reservationId\":\"")
              .append(id)
              .append("\",\"userId\":\"u-")
              .append(random.nextInt(25))
              .append("\",\"holdSeconds\":")
              .append(expires ? 1 : 600 + random.nextInt(600))
              .append(",\"lines\":[");
      for (int line = 0; line < lines; line++) {
        String sku = skus.get(random.nextInt(skus.size()));
        if (chosen.contains(sku)) {
          continue;
        }
        chosen.add(sku);
        if (line > 0 && body.charAt(body.length() - 1) != '[') {
          body.append(',');
        }
        body.append("{\"skuId\":\"")
            .append(sku)
            .append("\",\"quantity\":")
            .append(1 + random.nextInt(2))
            .append('}');
      }
      body.append("]}");
      int status = http.status(HttpMethod.POST, "/api/reservations", body.toString());
      // Refused: over a limit, or a SKU paused.
      assertThat(status).isIn(201, 409);
      if (status == 201 && expires) {
        expiring++;
      } else if (status == 201) {
        live.add(new Held(id, chosen));
      }
    }
  }
}
