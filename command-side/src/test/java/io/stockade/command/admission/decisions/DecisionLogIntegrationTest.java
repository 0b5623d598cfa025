package io.stockade.command.admission.decisions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.command.CommandSideApplication;
import io.stockade.command.admission.rebuild.OwedRestores;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.TestRedis;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The gate's decision log: every decision reserve.lua makes, admitted or refused, reaches {@code
 * gate_decision} once, in the order the gate made it, through two instances, a restart of both and
 * a Redis that loses its data. The instances' scheduled drains are an hour apart here: the test
 * moves the decisions itself ({@link DecisionDrain#drainAll}), so that it knows what had been moved
 * when Redis lost its data.
 */
class DecisionLogIntegrationTest {

  private static final String DATABASE = "stockade_test_decisions";

  private static Path data;
  private static EmbeddedRedis redis;
  private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();
  private static JdbcTemplate jdbc;

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void startTwoInstances() throws IOException {
    data =
        Files.createTempDirectory(
            Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath(), "decisions-redis");
    redis = EmbeddedRedis.start(data);
    for (int i = 0; i < 2; i++) {
      instances.add(start());
    }
    jdbc = instances.get(0).getBean(JdbcTemplate.class);
  }

  private static ConfigurableApplicationContext start() {
    return new SpringApplicationBuilder(CommandSideApplication.class)
        .run(
            "--server.port=0",
            "--spring.data.redis.host=127.0.0.1",
            "--spring.data.redis.port=" + redis.port(),
            "--stockade.local-infra.database=" + DATABASE,
            "--stockade.decisions.enabled=true",
            "--stockade.decisions.drain-interval=1h",
            "--stockade.decisions.drain-batch=50");
  }

  @AfterAll
  static void stop() {
    instances.forEach(ConfigurableApplicationContext::close);
    if (redis != null) {
      redis.stop();
    }
  }

  @Test
  void rowsGoInStatementsOfTheirNumberEachAndAllOfThemAreWritten() {
    String sku = "rows-" + run;
    List<Object[]> rows = new ArrayList<>();
    for (int n = 0; n < 7; n++) {
      rows.add(
          new Object[] {
            sku, 1_000L + n, (long) n, 0, 1L, (long) n, "R-" + n, "u-" + n, 1, "ADMITTED", null
          });
    }
    // Three statements of three, three and one; the last row a second time, skipped by its key.
    DecisionDrain.insert(jdbc, rows, 3);
    DecisionDrain.insert(jdbc, rows.subList(6, 7), 3);
    assertThat(
            jdbc.queryForList(
                "select reservation_id from gate_decision where sku_id = ? order by decided_at",
                String.class,
                sku))
        .containsExactly("R-0", "R-1", "R-2", "R-3", "R-4", "R-5", "R-6");
  }

  @Test
  void aFlashSaleLogsEveryDecisionOnceInTheGatesOrder() throws Exception {
    int stock = 40;
    int attempts = 400;
    String sku = register("hot", stock, null);
    Map<String, Integer> answers = new ConcurrentHashMap<>();
    AtomicInteger next = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(8);
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      workers.add(
          threads.submit(
              () -> {
                for (int n = next.incrementAndGet(); n <= attempts; n = next.incrementAndGet()) {
                  String id = "F-" + run + "-" + n;
                  int status = reserveUntilAnswered(n % 2, id, "u-" + n, sku);
                  answers.put(id, status);
                  if (status == 201) {
                    // A retry of an admitted reservation is answered from the gate's record (200,
                    // the reservation as stored): no new decision.
                    assertThat(reserveUntilAnswered((n + 1) % 2, id, "u-" + n, sku)).isEqualTo(200);
                  }
                }
              }));
    }
    for (Future<?> worker : workers) {
      worker.get(3, TimeUnit.MINUTES);
    }
    threads.shutdown();
    assertThat(answers.values()).containsOnly(201, 409);

    drain();
    List<Map<String, Object>> log = decisionsOf(sku);
    // An admission whose event could not be stored in time (a 503, retried) is withdrawn: its
    // ADMITTED entry is followed by a WITHDRAWN one, and the retry is decided anew.
    Map<String, List<String>> byReservation = new java.util.HashMap<>();
    for (Map<String, Object> row : log) {
      byReservation
          .computeIfAbsent((String) row.get("reservation_id"), id -> new ArrayList<>())
          .add((String) row.get("outcome"));
    }
    assertThat(byReservation.keySet()).as("every attempt decided").hasSize(attempts);
    byReservation.forEach(
        (id, outcomes) -> {
          List<String> kept = new ArrayList<>(outcomes);
          while (kept.size() > 1
              && kept.get(0).equals("ADMITTED")
              && kept.get(1).equals("WITHDRAWN")) {
            kept.subList(0, 2).clear();
          }
          assertThat(kept)
              .as("the decisions of %s once the withdrawn admissions are set aside", id)
              .containsExactly(answers.get(id) == 201 ? "ADMITTED" : "INSUFFICIENT_STOCK");
        });
    long previous = -1;
    long available = stock;
    int admitted = 0;
    for (Map<String, Object> row : log) {
      long sequence = ((Number) row.get("sequence")).longValue();
      switch ((String) row.get("outcome")) {
        case "ADMITTED" -> {
          admitted++;
          available--;
        }
        case "WITHDRAWN" -> {
          admitted--;
          available++;
        }
        default -> {}
      }
      if (!"WITHDRAWN".equals(row.get("outcome"))) {
        // A withdrawal names the admission it gives back, by that admission's sequence.
        assertThat(sequence).as("sequences in the log's order").isGreaterThan(previous);
        previous = sequence;
      }
      assertThat(((Number) row.get("available_after")).longValue())
          .as("available after decision %d", sequence)
          .isEqualTo(available);
      if ("INSUFFICIENT_STOCK".equals(row.get("outcome"))) {
        assertThat(available).as("a refusal of one unit: none left").isZero();
      }
    }
    assertThat(admitted).as("admitted, less withdrawn: the stock").isEqualTo(stock);
    assertThat(available).isZero();
    // Each admitted entry that stayed carries its event's admission sequence.
    for (Map<String, Object> row : log) {
      String id = (String) row.get("reservation_id");
      List<String> outcomes = byReservation.get(id);
      if ("ADMITTED".equals(row.get("outcome")) && !outcomes.contains("WITHDRAWN")) {
        assertThat(admissionSequence(id)).isEqualTo(((Number) row.get("sequence")).longValue());
      }
    }
    assertThat(streamLength()).as("entries left in Redis once moved").isZero();
  }

  /** Reserves one unit, the same request again while the answer is 503. */
  private static int reserveUntilAnswered(int instance, String id, String user, String sku) {
    return reserveUntilAnswered(instance, id, user, sku, 1);
  }

  private static int reserveUntilAnswered(
      int instance, String id, String user, String sku, int quantity) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> reserve(instance, id, user, sku, quantity), status -> status != 503);
  }

  /**
   * The log without the admissions withdrawn (a 503 on a loaded machine: the event not stored in
   * time; the request is then sent again): each WITHDRAWN row and the ADMITTED one it gives back.
   */
  private static List<Map<String, Object>> settled(List<Map<String, Object>> log) {
    List<Map<String, Object>> kept = new ArrayList<>(log);
    for (Map<String, Object> withdrawn :
        log.stream().filter(row -> "WITHDRAWN".equals(row.get("outcome"))).toList()) {
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

  @Test
  void aUsersDecisionsAcrossTwoSkusAndAnOrderOfBoth() {
    String limited = register("limited", 10, 1);
    String scarce = register("scarce", 1, null);
    String user = "buyer-" + run;
    assertThat(reserveUntilAnswered(0, "U1-" + run, user, limited)).isEqualTo(201);
    assertThat(reserveUntilAnswered(1, "U2-" + run, user, limited)).isEqualTo(409);
    assertThat(reserveUntilAnswered(0, "U3-" + run, "other-" + run, scarce)).isEqualTo(201);
    assertThat(reserveUntilAnswered(1, "U4-" + run, user, scarce)).isEqualTo(409);
    // One order of both SKUs, refused: one entry per SKU, one decision.
    assertThat(
            status(
                http(0)
                    .send(
                        HttpMethod.POST,
                        "/api/reservations",
                        "{\"reservationId\":\"U5-"
                            + run
                            + "\",\"userId\":\""
                            + user
                            + "\",\"lines\":[{\"skuId\":\""
                            + limited
                            + "\",\"quantity\":1},{\"skuId\":\""
                            + scarce
                            + "\",\"quantity\":1}]}")))
        .isEqualTo(409);
    // An order naming an unknown SKU is bad input, not a decision.
    assertThat(reserve(0, "U6-" + run, user, "nowhere-" + run, 1)).isEqualTo(404);

    drain();
    List<Map<String, Object>> log =
        settled(
            jdbc.queryForList(
                "select reservation_id, sku_id, outcome, available_after, sequence from"
                    + " gate_decision where user_id = ? order by decided_at, entry_seq, sku_id",
                user));
    assertThat(log)
        .extracting(
            row -> row.get("reservation_id") + " " + row.get("sku_id") + " " + row.get("outcome"))
        .containsExactly(
            "U1-" + run + " " + limited + " ADMITTED",
            "U2-" + run + " " + limited + " PURCHASE_LIMIT_EXCEEDED",
            "U4-" + run + " " + scarce + " INSUFFICIENT_STOCK",
            // The order's lines, in the order the gate read them, refused together.
            "U5-" + run + " " + limited + " PURCHASE_LIMIT_EXCEEDED",
            "U5-" + run + " " + scarce + " PURCHASE_LIMIT_EXCEEDED");
    assertThat(log.get(3).get("sequence")).isEqualTo(log.get(4).get("sequence"));
    assertThat(log)
        .extracting(row -> ((Number) row.get("available_after")).longValue())
        .containsExactly(9L, 9L, 0L, 9L, 0L);
  }

  @Test
  void decisionsWaitingInRedisOutliveARestartOfEveryInstance() {
    String sku = register("restart", 3, null);
    for (int n = 0; n < 10; n++) {
      reserveUntilAnswered(n % 2, "R-" + run + "-" + n, "u-" + n, sku);
    }
    assertThat(streamLength()).as("decisions waiting in Redis").isPositive();
    assertThat(
            instances
                .get(1)
                .getBean(io.micrometer.core.instrument.MeterRegistry.class)
                .get("stockade.decisions.backlog")
                .gauge()
                .value())
        .as("the backlog's gauge")
        .isEqualTo((double) streamLength());
    restartEveryInstance();
    drain();
    assertThat(settled(decisionsOf(sku)))
        .extracting(row -> row.get("outcome"))
        .containsExactly(
            "ADMITTED",
            "ADMITTED",
            "ADMITTED",
            "INSUFFICIENT_STOCK",
            "INSUFFICIENT_STOCK",
            "INSUFFICIENT_STOCK",
            "INSUFFICIENT_STOCK",
            "INSUFFICIENT_STOCK",
            "INSUFFICIENT_STOCK",
            "INSUFFICIENT_STOCK");
  }

  @Test
  void aRedisThatLosesItsDataLosesOnlyTheRefusalsNotYetMoved() throws Exception {
    String sku = register("lost", 31, null);
    // 20 admitted and 5 refused, moved; 10 admitted and 5 refused, still in Redis when it loses
    // everything.
    for (int n = 0; n < 25; n++) {
      reserveUntilAnswered(n % 2, "M-" + run + "-" + n, "u-" + n, sku, n < 20 ? 1 : 100);
    }
    drain();
    for (int n = 25; n < 40; n++) {
      reserveUntilAnswered(n % 2, "M-" + run + "-" + n, "u-" + n, sku, n < 35 ? 1 : 100);
    }
    long sequenceBefore =
        jdbc.queryForObject(
            "select max(sequence) from gate_decision where sku_id = ?", Long.class, sku);
    redis.stop();
    try (Stream<Path> files = Files.list(data)) {
      files.forEach(DecisionLogIntegrationTest::delete);
    }
    redis.start();
    // The gate is rebuilt from the events; the first reservation after it is admitted.
    String after = "M-" + run + "-after";
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> reserve(0, after, "u-after", sku, 1), status -> status != 503);
    // The lost admitted decisions are restored once the gate is open, owed until then.
    await().atMost(Duration.ofSeconds(60)).until(() -> owedRestores().isEmpty());
    drain();

    List<Map<String, Object>> log = settled(decisionsOf(sku));
    List<String> admitted =
        log.stream()
            .filter(row -> "ADMITTED".equals(row.get("outcome")))
            .map(row -> (String) row.get("reservation_id"))
            .toList();
    List<String> expected = new ArrayList<>();
    for (int n = 0; n < 35; n++) {
      if (n < 20 || n >= 25) {
        expected.add("M-" + run + "-" + n);
      }
    }
    expected.add(after);
    assertThat(admitted)
        .as("every admitted decision, the lost ones restored from their events")
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(log.stream().filter(row -> !"ADMITTED".equals(row.get("outcome"))))
        .as("the refusals moved before the loss")
        .extracting(row -> (String) row.get("reservation_id"))
        .containsExactlyInAnyOrder(
            "M-" + run + "-20",
            "M-" + run + "-21",
            "M-" + run + "-22",
            "M-" + run + "-23",
            "M-" + run + "-24");
    assertThat(log.stream().filter(row -> row.get("available_after") == null))
        .as("restored: the admitted decisions Redis lost, their available stock unknown")
        .extracting(row -> (String) row.get("reservation_id"))
        .containsExactlyInAnyOrderElementsOf(expected.subList(20, 30));
    long sequenceAfter =
        jdbc.queryForObject(
            "select sequence from gate_decision where reservation_id = ?", Long.class, after);
    assertThat(sequenceAfter)
        .as("the rebuilt gate's sequence goes on above the log's")
        .isGreaterThan(sequenceBefore);

    // Had the instance that rebuilt stopped before it restored them, the restore would still be
    // owed: any instance takes it up once it is overdue, from the events.
    List<Map<String, Object>> restored =
        log.stream().filter(row -> row.get("available_after") == null).toList();
    long epoch = -((Number) restored.get(0).get("epoch")).longValue();
    jdbc.update("delete from gate_decision where sku_id = ? and available_after is null", sku);
    jdbc.update(
        "insert into gate_decision_restore (epoch, partition_tag, since_ms, due_at)"
            + " values (?, ?, ?, utc_timestamp(6) - interval 1 second)",
        epoch,
        instances
            .get(0)
            .getBean(GateLayout.class)
            .partition(((Number) restored.get(0).get("gate_partition")).intValue())
            .tag(),
        ((Number) restored.get(0).get("decided_at")).longValue() - 60_000);
    instances.get(1).getBean(OwedRestores.class).takeUpOwedRestores();
    assertThat(settled(decisionsOf(sku)))
        .as("the owed restore taken up: the same rows again, the later admission not twice")
        .containsExactlyInAnyOrderElementsOf(log);
    assertThat(owedRestores()).as("owed restores once taken up").isEmpty();
  }

  @Test
  void aRedisBackFromAnOlderCopyKeepsItsStreamsAndLosesNoAdmittedDecision() throws Exception {
    String sku = register("older", 10, null);
    for (int n = 0; n < 4; n++) {
      reserveUntilAnswered(n % 2, "S-" + run + "-" + n, "u-" + n, sku, 1);
    }
    drain();
    // The copy Redis comes back from: its append-only file as it is now, with the stream emptied
    // by the drain but kept (as RDB and AOF keep it).
    Path aof = data.resolve("appendonly.aof");
    Path older = data.resolveSibling(data.getFileName() + "-older.aof");
    Files.copy(aof, older, StandardCopyOption.REPLACE_EXISTING);
    // Decided after the copy and never moved: two admitted, one refused.
    reserveUntilAnswered(0, "S-" + run + "-4", "u-4", sku, 1);
    reserveUntilAnswered(1, "S-" + run + "-5", "u-5", sku, 1);
    reserveUntilAnswered(0, "S-" + run + "-6", "u-6", sku, 100);
    long highestGiven =
        streamEntries().stream()
            .mapToLong(d -> Long.parseLong(d.split(" ")[0]))
            .max()
            .orElseThrow();

    redis.stop();
    Files.copy(older, aof, StandardCopyOption.REPLACE_EXISTING);
    Files.deleteIfExists(data.resolve("dump.rdb"));
    redis.start();
    assertThat(
            TestRedis.template("127.0.0.1", redis.port(), TestRedis.TIMEOUT)
                .hasKey(PARTITION_STREAM))
        .as("the stream came back with the older copy")
        .isTrue();

    String after = "S-" + run + "-after";
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> reserve(1, after, "u-after", sku, 1), status -> status != 503);
    await().atMost(Duration.ofSeconds(60)).until(() -> owedRestores().isEmpty());
    drain();

    List<Map<String, Object>> log = settled(decisionsOf(sku));
    assertThat(
            log.stream()
                .filter(row -> "ADMITTED".equals(row.get("outcome")))
                .map(row -> (String) row.get("reservation_id")))
        .as("every admitted decision once, the two the older copy lacks restored")
        .containsExactlyInAnyOrder(
            "S-" + run + "-0",
            "S-" + run + "-1",
            "S-" + run + "-2",
            "S-" + run + "-3",
            "S-" + run + "-4",
            "S-" + run + "-5",
            after);
    assertThat(log.stream().filter(row -> row.get("available_after") == null))
        .extracting(row -> (String) row.get("reservation_id"))
        .containsExactlyInAnyOrder("S-" + run + "-4", "S-" + run + "-5");
    long afterSequence =
        jdbc.queryForObject(
            "select sequence from gate_decision where reservation_id = ?", Long.class, after);
    assertThat(afterSequence)
        .as("the rebuilt gate's numbers go on above every number given, the lost refusal's too")
        .isGreaterThan(highestGiven);
  }

  /**
   * A rebuild's restore that fails right after the gate opens (the service's own Redis connection
   * still reconnecting after the restart, the database blinking) is tried again by the instance
   * that rebuilt, after a pause that doubles, until it is done, not left until it is overdue (two
   * minutes, then the next check of the owed restores); one that keeps failing stops trying within
   * half of that, still owed, for any instance's take-up.
   */
  @Test
  void aRestoreThatFailsRightAfterTheGateOpensIsTriedAgainUntilDone() {
    String sku = register("retried", 5, null);
    String id = "T-" + run + "-1";
    reserveUntilAnswered(0, id, "u-1", sku, 1);
    drain();
    Map<String, Object> logged =
        jdbc.queryForMap(
            "select * from gate_decision where reservation_id = ? and outcome = 'ADMITTED'", id);
    // As if Redis had lost it before the drain moved it.
    jdbc.update("delete from gate_decision where reservation_id = ?", id);
    GateLayout layout = instances.get(0).getBean(GateLayout.class);
    long epoch = ((Number) logged.get("epoch")).longValue();
    DecisionLogRestores decisionLog = instances.get(0).getBean(DecisionLogRestores.class);
    DecisionLogRestores.Restore restore =
        decisionLog.restoreOwed(
            epoch + 1, java.util.Set.of(layout.partition(0).tag()), OwedRestores.RESTORE_DUE);
    List<DecisionLogRestores.Admitted> admitted =
        List.of(
            new DecisionLogRestores.Admitted(
                layout.partition(0),
                id,
                "u-1",
                new io.stockade.api.reservation.ReservationLine(sku, 1),
                ((Number) logged.get("sequence")).longValue(),
                epoch,
                java.time.Instant.ofEpochMilli(((Number) logged.get("decided_at")).longValue())));
    StringRedisTemplate redis = instances.get(0).getBean(StringRedisTemplate.class);
    // The partition's stream unreadable (another type under its key): every try fails.
    redis.delete(PARTITION_STREAM);
    redis.opsForValue().set(PARTITION_STREAM, "not a stream");
    List<Long> pauses = new ArrayList<>();
    try {
      assertThat(OwedRestores.restoreUntilDone(decisionLog, restore, admitted, pauses::add))
          .as("a restore that keeps failing")
          .isFalse();
      assertThat(pauses).as("pauses that double").startsWith(1_000L, 2_000L, 4_000L);
      assertThat(pauses.stream().mapToLong(Long::longValue).sum())
          .as("tried for at most half of the time before it is due")
          .isLessThanOrEqualTo(OwedRestores.RESTORE_DUE.dividedBy(2).toMillis());
      assertThat(owedRestores()).as("still owed, for the take-up").isNotEmpty();

      pauses.clear();
      // Readable again after the first pause, as a connection that came back.
      assertThat(
              OwedRestores.restoreUntilDone(
                  decisionLog,
                  restore,
                  admitted,
                  millis -> {
                    pauses.add(millis);
                    redis.delete(PARTITION_STREAM);
                  }))
          .as("a restore that fails once")
          .isTrue();
    } finally {
      redis.delete(PARTITION_STREAM);
    }
    assertThat(pauses).containsExactly(1_000L);
    assertThat(owedRestores()).as("done, no longer owed").isEmpty();
    assertThat(
            jdbc.queryForList(
                "select outcome from gate_decision where reservation_id = ?", String.class, id))
        .as("the lost decision back in the log, once")
        .containsExactly("ADMITTED");
  }

  /**
   * A sale through a Redis killed and restarted from a copy of its data taken while the sale went
   * on (an operator's failover to a lagging replica, a restart from a snapshot): the units exact,
   * and every admitted reservation in the decision log once, with sequence numbers that never
   * repeat and increase in each epoch's order. The drains run all along, as scheduled ones would.
   */
  @Test
  void aSaleThroughARedisRestartedFromAnOlderCopyLogsEveryAdmissionOnce() throws Exception {
    int stock = 1500;
    String sku = register("failover", stock, null);
    Map<String, Integer> answers = new ConcurrentHashMap<>();
    AtomicInteger next = new AtomicInteger();
    AtomicInteger admitted = new AtomicInteger();
    java.util.concurrent.atomic.AtomicBoolean selling =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    ExecutorService threads = Executors.newFixedThreadPool(7);
    Future<?> drains =
        threads.submit(
            () -> {
              while (selling.get()) {
                instances.get(0).getBean(DecisionDrain.class).drainAll();
                // The pace of the scheduled drains.
                java.util.concurrent.locks.LockSupport.parkNanos(200_000_000L);
              }
            });
    List<Future<?>> buyers = new ArrayList<>();
    for (int t = 0; t < 6; t++) {
      buyers.add(
          threads.submit(
              () -> {
                while (true) {
                  int n = next.incrementAndGet();
                  String id = "V-" + run + "-" + n;
                  int status = reserveUntilAnswered(n % 2, id, "u-" + n, sku);
                  answers.put(id, status);
                  // 200: an admission Redis held when it failed, stored by the retry.
                  if (status == 201 || status == 200) {
                    admitted.incrementAndGet();
                  } else {
                    return;
                  }
                }
              }));
    }
    await().atMost(Duration.ofMinutes(2)).until(() -> admitted.get() >= 400);
    Path aof = data.resolve("appendonly.aof");
    Path older = data.resolveSibling(data.getFileName() + "-sale.aof");
    Files.copy(aof, older, StandardCopyOption.REPLACE_EXISTING);
    int atCopy = admitted.get();
    await().atMost(Duration.ofMinutes(2)).until(() -> admitted.get() >= atCopy + 150);
    redis.stop();
    Files.copy(older, aof, StandardCopyOption.REPLACE_EXISTING);
    Files.deleteIfExists(data.resolve("dump.rdb"));
    redis.start();
    for (Future<?> buyer : buyers) {
      buyer.get(5, TimeUnit.MINUTES);
    }
    selling.set(false);
    drains.get(1, TimeUnit.MINUTES);
    threads.shutdown();

    List<String> sold =
        answers.entrySet().stream()
            .filter(a -> a.getValue() == 201 || a.getValue() == 200)
            .map(Map.Entry::getKey)
            .toList();
    assertThat(answers.values()).isSubsetOf(200, 201, 409);
    assertThat(sold).as("the units exact").hasSize(stock);
    await().atMost(Duration.ofSeconds(60)).until(() -> owedRestores().isEmpty());
    drain();
    List<Map<String, Object>> log = settled(decisionsOf(sku));
    assertThat(
            log.stream()
                .filter(row -> "ADMITTED".equals(row.get("outcome")))
                .map(row -> (String) row.get("reservation_id")))
        .as("every admitted reservation in the log once")
        .containsExactlyInAnyOrderElementsOf(sold);
    assertThat(
            log.stream()
                .filter(row -> !"WITHDRAWN".equals(row.get("outcome")))
                .map(row -> ((Number) row.get("sequence")).longValue()))
        .as("no sequence number given twice")
        .doesNotHaveDuplicates();
    Map<Long, List<Long>> byEpoch = new java.util.TreeMap<>();
    for (Map<String, Object> row : log) {
      long epoch = ((Number) row.get("epoch")).longValue();
      if (epoch > 0 && !"WITHDRAWN".equals(row.get("outcome"))) {
        byEpoch
            .computeIfAbsent(epoch, e -> new ArrayList<>())
            .add(((Number) row.get("sequence")).longValue());
      }
    }
    byEpoch.forEach(
        (epoch, sequences) ->
            assertThat(sequences).as("sequences in epoch %d's order", epoch).isSorted());
    List<Long> epochs = new ArrayList<>(byEpoch.keySet());
    for (int i = 1; i < epochs.size(); i++) {
      assertThat(byEpoch.get(epochs.get(i)).get(0))
          .as("epoch %d's numbers above epoch %d's", epochs.get(i), epochs.get(i - 1))
          .isGreaterThan(
              byEpoch.get(epochs.get(i - 1)).get(byEpoch.get(epochs.get(i - 1)).size() - 1));
    }
  }

  @Test
  void anOwedRestoreTakenUpLateLeavesTheAdmissionsAfterItsRebuildToTheDrain() {
    String sku = register("late", 5, null);
    reserveUntilAnswered(0, "T-" + run + "-0", "u-0", sku, 1);
    drain();
    // Admitted in the gate's epoch now, still in the stream when the restore is taken up.
    reserveUntilAnswered(1, "T-" + run + "-1", "u-1", sku, 1);
    long epoch =
        jdbc.queryForObject(
            "select epoch from gate_decision where reservation_id = ?",
            Long.class,
            "T-" + run + "-0");
    jdbc.update(
        "insert into gate_decision_restore (epoch, partition_tag, since_ms, due_at)"
            + " values (?, 'g0', ?, utc_timestamp(6) - interval 1 second)",
        epoch,
        System.currentTimeMillis() - 120_000);

    instances.get(1).getBean(OwedRestores.class).takeUpOwedRestores();
    drain();

    assertThat(settled(decisionsOf(sku)))
        .extracting(row -> row.get("reservation_id") + " " + row.get("epoch"))
        .as("each admission once, as the drain moved it")
        .containsExactlyInAnyOrder("T-" + run + "-0 " + epoch, "T-" + run + "-1 " + epoch);
    assertThat(owedRestores()).isEmpty();
  }

  @Test
  void aGapOfDroppedRefusalsReachesTheLogAsOneRowPerSkuAndUserAndIsCounted() {
    String sku = register("gap", 1, null);
    drain();
    StringRedisTemplate template = instances.get(0).getBean(StringRedisTemplate.class);
    // As reserve.lua leaves it when the stream held its whole backlog and no decision came since.
    template
        .opsForHash()
        .putAll(
            "stockade:{g0}:gate:dropped",
            Map.of("count", "7", sku + " u-a", "5", sku + " u-b", "2"));
    Counter dropped =
        instances.get(0).getBean(MeterRegistry.class).counter("stockade.decisions.dropped");
    double before = dropped.count();

    drain();

    assertThat(settled(decisionsOf(sku)))
        .extracting(
            row ->
                row.get("outcome")
                    + " "
                    + row.get("user_id")
                    + " '"
                    + row.get("reservation_id")
                    + "' "
                    + row.get("quantity")
                    + " "
                    + row.get("available_after"))
        .containsExactlyInAnyOrder(
            "REFUSALS_DROPPED u-a '' 5 null", "REFUSALS_DROPPED u-b '' 2 null");
    assertThat(dropped.count() - before).isEqualTo(7.0);
    assertThat(template.hasKey("stockade:{g0}:gate:dropped")).isFalse();
  }

  private static final String PARTITION_STREAM = "stockade:{g0}:gate:decisions";

  private static List<String> streamEntries() {
    return instances
        .get(0)
        .getBean(StringRedisTemplate.class)
        .opsForStream()
        .range(PARTITION_STREAM, org.springframework.data.domain.Range.unbounded())
        .stream()
        .map(entry -> String.valueOf(entry.getValue().get("d")))
        .toList();
  }

  private static List<Map<String, Object>> owedRestores() {
    return jdbc.queryForList("select * from gate_decision_restore");
  }

  @Test
  void decisionsOlderThanTheRetentionAreDeleted() {
    String sku = register("old", 5, null);
    reserveUntilAnswered(0, "O-" + run + "-1", "u-1", sku);
    drain();
    long old = System.currentTimeMillis() - Duration.ofDays(31).toMillis();
    jdbc.update(
        "insert into gate_decision (sku_id, decided_at, entry_seq, gate_partition, epoch,"
            + " sequence, reservation_id, user_id, quantity, outcome, available_after)"
            + " values (?, ?, 0, 0, 1, 1, ?, 'u-0', 1, 'INSUFFICIENT_STOCK', 0)",
        sku,
        old,
        "O-" + run + "-0");
    instances.get(0).getBean(DecisionDrain.class).forgetOld();
    assertThat(settled(decisionsOf(sku)))
        .extracting(row -> row.get("reservation_id"))
        .containsExactly("O-" + run + "-1");
  }

  private static void restartEveryInstance() {
    int count = instances.size();
    instances.forEach(ConfigurableApplicationContext::close);
    instances.clear();
    for (int i = 0; i < count; i++) {
      instances.add(start());
    }
    jdbc = instances.get(0).getBean(JdbcTemplate.class);
  }

  /** Moves every decision waiting in Redis, as the scheduled drains would. */
  private static void drain() {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              instances.get(0).getBean(DecisionDrain.class).drainAll();
              assertThat(streamLength()).isZero();
            });
  }

  private static long streamLength() {
    Long length =
        instances
            .get(0)
            .getBean(StringRedisTemplate.class)
            .opsForStream()
            .size("stockade:{g0}:gate:decisions");
    return length == null ? 0 : length;
  }

  private static List<Map<String, Object>> decisionsOf(String sku) {
    return jdbc.queryForList(
        "select * from gate_decision where sku_id = ?"
            + " order by decided_at, entry_seq, gate_partition, epoch",
        sku);
  }

  private static long admissionSequence(String reservationId) {
    String payload =
        jdbc.queryForObject(
            "select convert(payload using utf8mb4) from domain_event_entry"
                + " where aggregate_identifier = ? and payload_type like '%.StockReserved'",
            String.class, "reservation:" + reservationId);
    java.util.regex.Matcher matcher =
        java.util.regex.Pattern.compile("\"admissionSequence\":(\\d+)").matcher(payload);
    assertThat(matcher.find()).as("admissionSequence in %s", payload).isTrue();
    return Long.parseLong(matcher.group(1));
  }

  private String register(String name, int stock, Integer limit) {
    String sku = name + "-" + run;
    String body =
        "{\"initialStock\": " + stock + (limit == null ? "" : ", \"perUserLimit\": " + limit) + "}";
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> status(http(0).send(HttpMethod.PUT, "/api/skus/" + sku, body)),
            status -> status == 201 || status == 200);
    return sku;
  }

  private static int reserve(int instance, String id, String user, String sku, int quantity) {
    return status(
        http(instance)
            .send(
                HttpMethod.POST,
                "/api/reservations",
                ApiClient.reservation(id, user, sku, quantity)));
  }

  private static int status(org.springframework.http.ResponseEntity<?> response) {
    return response.getStatusCode().value();
  }

  private static ApiClient http(int instance) {
    return new ApiClient(
        Integer.parseInt(
            instances.get(instance).getEnvironment().getProperty("local.server.port")));
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
}
