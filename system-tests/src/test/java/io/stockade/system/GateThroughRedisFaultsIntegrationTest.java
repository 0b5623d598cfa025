package io.stockade.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The admission gate through Redis failures, as deployed: two command-side instances launched from
 * the packaged jar, with their scheduled decision drains, recovery sweepers and gate followers as
 * they run in production, on one plain Redis of the test's own (with its append-only file) and a
 * database of the test's own ({@value #DATABASE}). Only the rate limits are off (one client sends
 * the whole load); the decision log is switched on explicitly.
 *
 * <p>A sale of 1,500 units whose Redis is killed mid-sale and restarted from a copy of its
 * append-only file taken earlier in the sale: the gate admits nothing on the older counters until
 * it is rebuilt from the event store, exactly 1,500 reservations are admitted, and the decision
 * log, moved by the instances' own drains, holds every admitted reservation once with sequence
 * numbers that increase within an epoch and never repeat across epochs.
 *
 * <p>6,000 holds of one SKU extended, confirmed in part, released or left held, then Redis
 * restarted empty: the gate is rebuilt once, by one of the two instances, and sells exactly the
 * units left; an extended hold comes back with its extension, and its release gives back a unit
 * that sells once.
 */
class GateThroughRedisFaultsIntegrationTest {

  private static final Logger log =
      LoggerFactory.getLogger(GateThroughRedisFaultsIntegrationTest.class);

  private static final String DATABASE = "stockade_test_system_redis_faults";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(300);
  private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(120);

  /** Redis's only partition on a standalone server (docs/design.md, "The gate's Redis keys"). */
  private static final String TAG = "stockade:{g0}:";

  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

  private static SystemServices system;
  private static SystemDatabase database;
  private static Path redisData;
  private static EmbeddedRedis redis;
  private static final List<ServiceProcess> instances = new ArrayList<>();
  private static final List<ApiClient> clients = new ArrayList<>();
  private static JdbcTemplate jdbc;
  private static RedisClient redisClient;

  @RegisterExtension
  static final TestWatcher LOGS_ON_FAILURE =
      new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
          if (system != null) {
            system.printLogs();
          }
        }
      };

  @BeforeAll
  static void startTwoInstances() throws Exception {
    system = new SystemServices(RUN);
    database = SystemDatabase.create(DATABASE);
    jdbc = database.jdbc();
    redisData = SystemServices.WORK.resolve("redis-" + RUN);
    redis = EmbeddedRedis.start(redisData);
    redisClient = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));
    List<String> arguments = new ArrayList<>(database.serviceArguments());
    arguments.add("--spring.data.redis.host=127.0.0.1");
    arguments.add("--spring.data.redis.port=" + redis.port());
    // One user and one client send the whole load, retrying each 503 at once.
    arguments.add("--stockade.rate-limit.enabled=false");
    // On by default in the jar; said here since the build switches it off for in-process tests.
    arguments.add("--stockade.decisions.enabled=true");
    arguments.add("--stockade.recovery.enabled=true");
    for (String name : List.of("command-a", "command-b")) {
      instances.add(system.service(name, "command-side", arguments));
    }
    try {
      // One at a time: two JVMs starting together on two cores can slow a first statement beyond
      // the services' 5 s transaction timeout.
      for (ServiceProcess instance : instances) {
        instance.launch();
        instance.awaitReady(START_TIMEOUT);
        clients.add(new ApiClient(instance.port()));
      }
    } catch (Throwable failure) {
      system.printLogs();
      throw failure;
    }
  }

  @AfterAll
  static void stopTheSystem() {
    if (system != null) {
      system.close();
    }
    if (redisClient != null) {
      redisClient.shutdown();
    }
    if (redis != null) {
      redis.close();
    }
    if (database != null) {
      database.close();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // A Redis restarted from an older copy, mid-sale

  @Test
  void aSaleThroughARedisRestartedFromAnOlderCopyAdmitsTheUnitsExactlyAndLogsEachOnce()
      throws Exception {
    int stock = 1500;
    String sku = register("failover", stock);
    long epochBefore = epoch();
    Map<String, Integer> answers = new ConcurrentHashMap<>();
    AtomicInteger next = new AtomicInteger();
    AtomicInteger admitted = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(6);
    List<Future<?>> buyers = new ArrayList<>();
    try {
      for (int t = 0; t < 6; t++) {
        buyers.add(
            threads.submit(
                () -> {
                  while (true) {
                    int n = next.incrementAndGet();
                    String id = "V-" + RUN + "-" + n;
                    int status = reserveUntilAnswered(n % 2, id, "u-" + n, sku, refused);
                    answers.put(id, status);
                    // 200: an admission Redis held when it failed, stored by the retry.
                    if (status == 201 || status == 200) {
                      admitted.incrementAndGet();
                    } else {
                      return null;
                    }
                  }
                }));
      }
      await("400 admissions").atMost(SETTLE_TIMEOUT).until(() -> admitted.get() >= 400);
      Path aof = redisData.resolve("appendonly.aof");
      Path older = redisData.resolveSibling(redisData.getFileName() + "-sale.aof");
      Files.copy(aof, older, StandardCopyOption.REPLACE_EXISTING);
      int atCopy = admitted.get();
      await("150 admissions after the copy")
          .atMost(SETTLE_TIMEOUT)
          .until(() -> admitted.get() >= atCopy + 150);
      redis.stop();
      int atKill = admitted.get();
      Files.copy(older, aof, StandardCopyOption.REPLACE_EXISTING);
      Files.deleteIfExists(redisData.resolve("dump.rdb"));
      redis.start();
      log.info(
          "Redis restarted from the copy taken at {} admissions, killed at {}", atCopy, atKill);
      for (Future<?> buyer : buyers) {
        buyer.get(5, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
    }
    log.info("Answers: {}; 503s retried: {}", countByStatus(answers), refused.get());

    List<String> sold =
        answers.entrySet().stream()
            .filter(a -> a.getValue() == 201 || a.getValue() == 200)
            .map(Map.Entry::getKey)
            .toList();
    assertThat(answers.values()).isSubsetOf(200, 201, 409);
    assertThat(sold).as("the units exact").hasSize(stock);
    assertThat(storedReservations(sku)).as("reservations in the event store").isEqualTo(stock);
    assertThat(epoch())
        .as("the gate rebuilt from the events, once, before it admitted again")
        .isEqualTo(epochBefore + 1);
    await("the gate's counters after the sale")
        .atMost(SETTLE_TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(gate(sku))
                    .containsEntry("available", "0")
                    .containsEntry("reserved", String.valueOf(stock)));

    // The instances' own drains move what Redis holds; restores owed by the rebuild are taken up.
    await("the owed restores taken up, the decision stream drained")
        .atMost(SETTLE_TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .until(() -> owedRestores() == 0 && decisionStreamLength() == 0);
    List<Map<String, Object>> decisions = settled(decisionsOf(sku));
    assertThat(
            decisions.stream()
                .filter(row -> "ADMITTED".equals(row.get("outcome")))
                .map(row -> (String) row.get("reservation_id")))
        .as("every admitted reservation in the log once")
        .containsExactlyInAnyOrderElementsOf(sold);
    assertThat(
            decisions.stream()
                .filter(row -> !"WITHDRAWN".equals(row.get("outcome")))
                .map(row -> ((Number) row.get("sequence")).longValue()))
        .as("no sequence number given twice")
        .doesNotHaveDuplicates();
    Map<Long, List<Long>> byEpoch = new TreeMap<>();
    for (Map<String, Object> row : decisions) {
      long epoch = ((Number) row.get("epoch")).longValue();
      if (epoch > 0 && !"WITHDRAWN".equals(row.get("outcome"))) {
        byEpoch
            .computeIfAbsent(epoch, e -> new ArrayList<>())
            .add(((Number) row.get("sequence")).longValue());
      }
    }
    assertThat(byEpoch).as("decisions by epoch").isNotEmpty();
    byEpoch.forEach(
        (epoch, sequences) ->
            assertThat(sequences).as("sequences in epoch %d's order", epoch).isSorted());
    List<Long> epochs = new ArrayList<>(byEpoch.keySet());
    for (int i = 1; i < epochs.size(); i++) {
      List<Long> before = byEpoch.get(epochs.get(i - 1));
      assertThat(byEpoch.get(epochs.get(i)).get(0))
          .as("epoch %d's numbers above epoch %d's", epochs.get(i), epochs.get(i - 1))
          .isGreaterThan(before.get(before.size() - 1));
    }
  }

  /** Sends a reservation, again with its id while it is answered 503 (each counted). */
  private static int reserveUntilAnswered(
      int instance, String id, String user, String sku, AtomicInteger refused) {
    return await()
        .atMost(SETTLE_TIMEOUT)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              int status = reserve(instance, id, user, sku);
              if (status == 503) {
                refused.incrementAndGet();
              }
              return status;
            },
            status -> status != 503);
  }

  /**
   * The log without the admissions withdrawn (a 503 on a loaded machine: the event not stored in
   * time; the request is then sent again): each WITHDRAWN row and the ADMITTED one it gives back.
   */
  private static List<Map<String, Object>> settled(List<Map<String, Object>> decisions) {
    List<Map<String, Object>> kept = new ArrayList<>(decisions);
    for (Map<String, Object> withdrawn :
        decisions.stream().filter(row -> "WITHDRAWN".equals(row.get("outcome"))).toList()) {
      kept.remove(withdrawn);
      for (int i = kept.size() - 1; i >= 0; i--) {
        Map<String, Object> row = kept.get(i);
        if ("ADMITTED".equals(row.get("outcome"))
            && row.get("reservation_id").equals(withdrawn.get("reservation_id"))
            && row.get("sku_id").equals(withdrawn.get("sku_id"))
            && row.get("sequence").equals(withdrawn.get("sequence"))) {
          kept.remove(i);
          break;
        }
      }
    }
    return kept;
  }

  private static List<Map<String, Object>> decisionsOf(String sku) {
    return jdbc.queryForList(
        "select * from gate_decision where sku_id = ?"
            + " order by decided_at, entry_seq, gate_partition, epoch",
        sku);
  }

  private static long owedRestores() {
    return jdbc.queryForObject("select count(*) from gate_decision_restore", Long.class);
  }

  private static long decisionStreamLength() {
    return redis(commands -> commands.xlen(TAG + "gate:decisions"));
  }

  // ---------------------------------------------------------------------------------------------
  // 6,000 holds, then Redis restarted empty

  @Test
  void sixThousandHoldsExtendedConfirmedInPartReleasedOrLeftHeldSurviveARedisRestartedEmpty()
      throws Exception {
    int holds = 6_000;
    String sku = register("crowd", 8_000);
    // Every fourth hold is of two units: 1,500 x 2 + 4,500 x 1 = 7,500 units held, 500 left.
    inParallel(
        holds,
        i ->
            send(
                i % 2,
                HttpMethod.POST,
                "/api/reservations",
                ApiClient.reservation("C-" + RUN + "-" + i, "c-" + RUN + "-" + i, sku, 1)
                    .replace("\"quantity\":1", "\"quantity\":" + (i % 4 == 0 ? 2 : 1))),
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
                      "/api/reservations/C-" + RUN + "-" + i + "/confirm",
                      "{\"lines\":[{\"skuId\":\"" + sku + "\",\"quantity\":1}]}");
              case 2 ->
                  send(
                      i % 2,
                      HttpMethod.POST,
                      "/api/reservations/C-" + RUN + "-" + i + "/release",
                      "{\"reason\":\"CANCELLED\"}");
              default ->
                  i % 8 == 3
                      ? 200
                      : send(
                          i % 2,
                          HttpMethod.POST,
                          "/api/reservations/C-" + RUN + "-" + i + "/extend",
                          "{\"holdSeconds\":1800}");
            },
        200);
    int sold = 1_500;
    int held = 3_000;
    int left = 8_000 - sold - held;
    // Confirmations and releases reach the gate after their events: wait until it holds them all.
    await("the gate holding every confirmation and release")
        .atMost(SETTLE_TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(gate(sku))
                    .containsEntry("available", String.valueOf(left))
                    .containsEntry("reserved", String.valueOf(held))
                    .containsEntry("sold", String.valueOf(sold)));
    String extendedHold = "C-" + RUN + "-1";
    String extendedUntil = reservationExpiry(extendedHold);
    assertThat(extendedUntil).as("the extended hold's expiry in the gate").isNotNull();
    long epochBefore = epoch();

    redis.stop();
    try (Stream<Path> files = Files.walk(redisData)) {
      files
          .sorted(Comparator.reverseOrder())
          .filter(file -> !file.equals(redisData))
          .forEach(GateThroughRedisFaultsIntegrationTest::delete);
    }
    redis.start();
    SoldOut load = sellOut(sku);
    log.info("After the restart: {}", load.statuses);

    assertThat(load.admitted.get())
        .as("sold after the restart: exactly the units left")
        .isEqualTo(left);
    assertThat(epoch()).as("rebuilt once, by one of the two instances").isEqualTo(epochBefore + 1);
    assertThat(gate(sku))
        .containsEntry("available", "0")
        .containsEntry("reserved", String.valueOf(held + left))
        .containsEntry("sold", String.valueOf(sold));
    assertThat(reservationExpiry(extendedHold))
        .as("an extended hold, rebuilt with its extension")
        .isEqualTo(extendedUntil);
    // A hold left over gives its units back to a rebuilt gate, and they sell again: once.
    assertThat(send(0, HttpMethod.POST, "/api/reservations/" + extendedHold + "/release", null))
        .isEqualTo(200);
    await("the released unit back in the gate")
        .atMost(SETTLE_TIMEOUT)
        .untilAsserted(() -> assertThat(gate(sku)).containsEntry("available", "1"));
    assertThat(reserve(1, "again-" + RUN, "again-" + RUN, sku)).isEqualTo(201);
    assertThat(reserve(0, "again2-" + RUN, "again2-" + RUN, sku)).isEqualTo(409);
  }

  /**
   * Sends {@code count} requests from 8 threads, request {@code i} by {@code call}, each retried
   * while it is answered 503, and checks that every one was answered {@code expected}.
   */
  private static void inParallel(int count, IntUnaryOperator call, int expected) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> answers = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        int n = i;
        answers.add(
            threads.submit(
                () ->
                    await()
                        .atMost(SETTLE_TIMEOUT)
                        .pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> call.applyAsInt(n), status -> status != 503)));
      }
      Map<Integer, Integer> statuses = new TreeMap<>();
      for (Future<Integer> answer : answers) {
        statuses.merge(answer.get(5, TimeUnit.MINUTES), 1, Integer::sum);
      }
      assertThat(statuses).isEqualTo(Map.of(expected, count));
    } finally {
      threads.shutdownNow();
    }
  }

  /** Reservations of one unit each, sent round the instances by 8 threads until sold out. */
  private static SoldOut sellOut(String sku) throws Exception {
    SoldOut load = new SoldOut();
    AtomicInteger sent = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        workers.add(
            threads.submit(
                () -> {
                  long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
                  while (System.nanoTime() < deadline) {
                    int n = sent.incrementAndGet();
                    int status = reserve(n % 2, "L-" + RUN + "-" + n, "u-" + n, sku);
                    load.statuses.merge(status, 1, Integer::sum);
                    if (status == 201) {
                      load.admitted.incrementAndGet();
                    } else if (status == 409) {
                      return null;
                    } else if (status == 503) {
                      // The gate closed or rebuilding: ask again a little later.
                      Thread.sleep(20);
                    } else {
                      throw new AssertionError("Unexpected status " + status);
                    }
                  }
                  throw new AssertionError("Not sold out in time");
                }));
      }
      for (Future<?> worker : workers) {
        worker.get(5, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
    }
    return load;
  }

  private static final class SoldOut {
    final AtomicInteger admitted = new AtomicInteger();
    final Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
  }

  private static String reservationExpiry(String reservationId) {
    return redis(commands -> commands.hget(TAG + "reservation:" + reservationId, "expiresAt"));
  }

  // ---------------------------------------------------------------------------------------------
  // Shared

  /** Registers a SKU of the run; 503 (a gate still opening after the previous test) is retried. */
  private static String register(String name, int stock) {
    String sku = name + "-" + RUN;
    await("registration of " + sku)
        .atMost(SETTLE_TIMEOUT)
        .until(
            () -> send(0, HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": " + stock + "}"),
            status -> status == 201 || status == 200);
    return sku;
  }

  private static int reserve(int instance, String id, String user, String sku) {
    return send(instance, HttpMethod.POST, "/api/reservations", reservation(id, user, sku));
  }

  private static String reservation(String id, String user, String sku) {
    return ApiClient.reservation(id, user, sku, 1);
  }

  private static int send(int instance, HttpMethod method, String path, String body) {
    return clients.get(instance).send(method, path, body).getStatusCode().value();
  }

  private static Map<String, String> gate(String sku) {
    return redis(commands -> commands.hgetall(TAG + "sku:" + sku));
  }

  /** On a connection of its own, so that a Redis restarted in between is simply asked again. */
  private static <T> T redis(
      Function<io.lettuce.core.api.sync.RedisCommands<String, String>, T> call) {
    try (StatefulRedisConnection<String, String> connection = redisClient.connect()) {
      return call.apply(connection.sync());
    }
  }

  private static long epoch() {
    return jdbc.queryForObject("select epoch from gate_epoch where id = 1", Long.class);
  }

  /** Units of the SKU the event store holds as reserved (every reservation here is one unit). */
  private static int storedReservations(String sku) {
    return jdbc.queryForObject(
        "select count(*) from domain_event_entry where payload_type like '%.StockReserved'"
            + " and convert(payload using utf8mb4) like ?",
        Integer.class, "%\"skuId\":\"" + sku + "\"%");
  }

  private static Map<Integer, Long> countByStatus(Map<String, Integer> answers) {
    Map<Integer, Long> counts = new TreeMap<>();
    answers.values().forEach(status -> counts.merge(status, 1L, Long::sum));
    return counts;
  }

  private static void delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
