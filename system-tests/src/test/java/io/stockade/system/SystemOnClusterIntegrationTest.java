package io.stockade.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.localinfra.EmbeddedRedisCluster;
import io.stockade.platform.testing.ApiClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The whole system as it is deployed: two command-side and two query-side JVMs, each launched from
 * its module's executable jar ({@code java -jar}), on one Redis Cluster of three masters ({@link
 * EmbeddedRedisCluster}) and one database of the test's own ({@value #DEFAULT_DATABASE} unless
 * {@code stockade.local-infra.database} says otherwise), through the HTTP API only, but for the
 * checks that read Redis and the database directly.
 *
 * <p>The scenarios run in order on the same system: a flash sale of a hot SKU in three buckets
 * spread over both command instances; the query instances sharing the projections' segments; a
 * cluster master restarted empty (the gate rebuilt once, by one of the two command instances); a
 * query instance that dies (the other takes its segments over); a command instance that dies under
 * load (the other one's sweeper gives back what it admitted but never recorded). Each leaves one
 * instance fewer or a changed gate behind, so they are not meant to run alone.
 *
 * <p>The services' logs are in {@code target/system-test/logs-<run>/}, printed in part when a
 * scenario fails.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SystemOnClusterIntegrationTest {

  /** What begins a reservation's stream identifier in the event store (ReservationEvent). */
  private static final String RESERVATION_STREAM = "reservation:";

  private static final Logger log = LoggerFactory.getLogger(SystemOnClusterIntegrationTest.class);

  private static final String DEFAULT_DATABASE = "stockade_test_system";
  private static final String DATABASE =
      System.getProperty("stockade.local-infra.database", DEFAULT_DATABASE);

  private static final List<String> PROJECTIONS =
      List.of("stock-projection", "reservation-projection");
  private static final int SEGMENTS_PER_PROJECTION = 2;

  /** Axon's token claim timeout, the query side's default: a claim older than this is free. */
  private static final Duration CLAIM_TIMEOUT = Duration.ofSeconds(10);

  /** How often Axon's pooled processors look for segments to claim (its default). */
  private static final Duration CLAIM_INTERVAL = Duration.ofSeconds(5);

  private static final Duration START_TIMEOUT = Duration.ofSeconds(300);
  private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(90);

  private static final int STOCK = 100;
  private static final int BUCKETS = 3;
  private static final int SALE_REQUESTS = 400;
  private static final int SALE_THREADS = 8;
  private static final int REPLENISHED = 30;

  private static final Path WORK = SystemServices.WORK;

  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final String HOT = "hot-" + RUN;

  private static final List<ServiceProcess> commands = new ArrayList<>();
  private static final List<ServiceProcess> queries = new ArrayList<>();

  private static final Map<Integer, ApiClient> clients = new ConcurrentHashMap<>();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static SystemServices system;
  private static SystemDatabase database;
  private static EmbeddedRedisCluster cluster;
  private static GateKeys gate;
  private static JdbcTemplate jdbc;

  @RegisterExtension
  static final TestWatcher LOGS_ON_FAILURE =
      new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
          printLogs();
        }
      };

  // ---------------------------------------------------------------------------------------------
  // The system

  @BeforeAll
  static void startTheSystem() throws Exception {
    long started = System.nanoTime();
    try {
      system = new SystemServices(RUN);
      database = SystemDatabase.create(DATABASE);
      jdbc = database.jdbc();
      cluster = EmbeddedRedisCluster.start(WORK.resolve("redis-cluster-" + RUN), 3);
      gate = new GateKeys(cluster.ports());

      List<String> common = new ArrayList<>(database.serviceArguments());
      common.add("--spring.data.redis.cluster.nodes=" + cluster.nodes());
      for (int i = 1; i <= 2; i++) {
        List<String> arguments = new ArrayList<>(common);
        arguments.add("--stockade.recovery.enabled=true");
        arguments.add("--stockade.recovery.unrecorded-after=2s");
        arguments.add("--stockade.recovery.interval=500ms");
        arguments.add("--stockade.rate-limit.enabled=false");
        commands.add(system.service("command-side-" + i, "command-side", arguments));
      }
      for (int i = 1; i <= 2; i++) {
        List<String> arguments = new ArrayList<>(common);
        // Reports run when asked for: no scheduled check competing for the two cores.
        arguments.add("--stockade.reconciliation.interval=0s");
        queries.add(system.service("query-side-" + i, "query-side", arguments));
      }
      // One at a time. Started together, some can fail to start: two query instances on a fresh
      // database both create a projection's segments, and the one that loses fails with a
      // rollback-only transaction (Axon 4.13's pooled processor with the JPA token store); and a
      // command instance whose first statements a JVM starting beside it slows beyond its 5 s
      // transaction timeout on two busy cores fails as well.
      for (ServiceProcess service :
          List.of(commands.get(0), queries.get(0), queries.get(1), commands.get(1))) {
        service.launch();
        service.awaitReady(START_TIMEOUT);
      }
    } catch (Throwable failure) {
      printLogs();
      throw failure;
    }
    log.info(
        "The system is up in {} s: {}",
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started),
        system.all());
  }

  @AfterAll
  static void stopTheSystem() {
    if (system != null) {
      system.close();
    }
    if (gate != null) {
      gate.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (database != null) {
      database.close();
    }
  }

  private static void printLogs() {
    if (system != null) {
      system.printLogs();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 1. A flash sale over both command instances

  @Test
  @Order(1)
  void aFlashSaleOverBothCommandInstancesAdmitsExactlyTheStock() throws Exception {
    ResponseEntity<JsonNode> registered =
        register(HOT, "{\"initialStock\": " + STOCK + ", \"buckets\": " + BUCKETS + "}");
    assertThat(registered.getStatusCode().value()).isEqualTo(201);
    assertThat(registered.getBody().get("buckets").asInt()).isEqualTo(BUCKETS);
    assertThat(gate.buckets(HOT))
        .as("the hot SKU's buckets, one on every master")
        .hasSize(BUCKETS)
        .extracting(GateKeys.Bucket::master)
        .doesNotHaveDuplicates();

    Map<String, Integer> outcomes = new ConcurrentHashMap<>();
    Map<Integer, AtomicInteger> admittedBy = new ConcurrentHashMap<>();
    AtomicInteger unavailable = new AtomicInteger();
    AtomicInteger sent = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(SALE_THREADS);
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < SALE_THREADS; t++) {
      workers.add(
          threads.submit(
              () -> {
                for (int n = sent.incrementAndGet();
                    n <= SALE_REQUESTS;
                    n = sent.incrementAndGet()) {
                  int instance = n % 2;
                  Answer answer =
                      reserveUntilAnswered(
                          instance, "F-" + RUN + "-" + n, "fu-" + n, HOT, unavailable);
                  outcomes.merge(answer.label(), 1, Integer::sum);
                  if (answer.reserved()) {
                    admittedBy
                        .computeIfAbsent(instance, i -> new AtomicInteger())
                        .incrementAndGet();
                  }
                }
              }));
    }
    try {
      for (Future<?> worker : workers) {
        worker.get(5, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
    }
    log.info(
        "Flash sale of {} units over both instances: {} (503 answers retried: {}), admitted by"
            + " instance: {}",
        STOCK,
        new TreeMap<>(outcomes),
        unavailable.get(),
        admittedBy);

    assertThat(outcomes)
        .as("final answer per reservation")
        .containsOnly(
            Map.entry("reserved", STOCK),
            Map.entry("409 insufficient-stock", SALE_REQUESTS - STOCK));
    assertThat(admittedBy.keySet()).as("instances that admitted").containsExactlyInAnyOrder(0, 1);
    assertThat(reservedEvents(HOT)).as("StockReserved events of the hot SKU").isEqualTo(STOCK);
    awaitGate(HOT, STOCK, 0, STOCK);

    for (ServiceProcess query : queries) {
      awaitStock(query, HOT, STOCK, 0, STOCK);
      awaitConsistent(query, HOT, STOCK, 0, STOCK);
    }

    // The decision log, read over HTTP: one decision per reservation (an admission withdrawn
    // after a 503 shows ADMITTED then WITHDRAWN, and its retry is decided anew), the stock
    // admitted, every refusal with nothing left in its bucket, each bucket in its own order.
    List<JsonNode> log = awaitDecisions(queries.get(0), HOT, SALE_REQUESTS);
    List<JsonNode> settled = settled(log);
    assertThat(settled)
        .as("decisions once withdrawn admissions are set aside")
        .hasSize(SALE_REQUESTS);
    assertThat(settled.stream().map(d -> d.get("reservationId").asString()).distinct().count())
        .as("reservations decided")
        .isEqualTo(SALE_REQUESTS);
    assertThat(settled.stream().filter(d -> "ADMITTED".equals(d.get("outcome").asString())))
        .as("admitted")
        .hasSize(STOCK);
    assertThat(
            settled.stream()
                .filter(d -> !"ADMITTED".equals(d.get("outcome").asString()))
                .map(d -> d.get("outcome").asString() + " " + d.get("availableAfter").asLong())
                .distinct())
        .as("the refusals")
        .containsExactly("INSUFFICIENT_STOCK 0");
    Map<Integer, Long> lastInBucket = new java.util.HashMap<>();
    for (JsonNode decision : log) {
      if (!"WITHDRAWN".equals(decision.get("outcome").asString())) {
        long sequence = decision.get("sequence").asLong();
        Long before = lastInBucket.put(decision.get("bucket").asInt(), sequence);
        assertThat(before == null || before < sequence)
            .as("sequence %d after %s in bucket %s", sequence, before, decision.get("bucket"))
            .isTrue();
      }
    }
    assertThat(lastInBucket.keySet()).as("buckets that decided").hasSize(BUCKETS);
    JsonNode user = query(queries.get(1)).get("/api/audit/users/fu-1/decisions").getBody();
    assertThat(settled(list(user.get("decisions"))))
        .extracting(d -> d.get("skuId").asString() + " " + d.get("reservationId").asString())
        .containsExactly(HOT + " F-" + RUN + "-1");
  }

  /** Every decision of the SKU over HTTP, page by page, once the log holds at least {@code n}. */
  private static List<JsonNode> awaitDecisions(ServiceProcess query, String sku, int n) {
    return await()
        .atMost(SETTLE_TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              List<JsonNode> all = new ArrayList<>();
              for (int page = 0; ; page++) {
                ResponseEntity<JsonNode> answer =
                    query(query)
                        .get("/api/audit/skus/" + sku + "/decisions?size=1000&page=" + page);
                assertThat(answer.getStatusCode().value()).isEqualTo(200);
                List<JsonNode> decisions = list(answer.getBody().get("decisions"));
                all.addAll(decisions);
                if (decisions.size() < 1000) {
                  assertThat(answer.getBody().get("total").asInt()).isEqualTo(all.size());
                  return all;
                }
              }
            },
            all -> settled(all).size() >= n);
  }

  private static List<JsonNode> list(JsonNode array) {
    List<JsonNode> list = new ArrayList<>();
    array.forEach(list::add);
    return list;
  }

  /** The decisions without the admissions withdrawn: each WITHDRAWN and the ADMITTED it undoes. */
  private static List<JsonNode> settled(List<JsonNode> log) {
    List<JsonNode> kept = new ArrayList<>(log);
    for (JsonNode withdrawn : log) {
      if ("WITHDRAWN".equals(withdrawn.get("outcome").asString())) {
        kept.remove(withdrawn);
        for (int i = kept.size() - 1; i >= 0; i--) {
          JsonNode d = kept.get(i);
          if ("ADMITTED".equals(d.get("outcome").asString())
              && d.get("reservationId").equals(withdrawn.get("reservationId"))
              && d.get("sequence").equals(withdrawn.get("sequence"))) {
            kept.remove(i);
            break;
          }
        }
      }
    }
    return kept;
  }

  // ---------------------------------------------------------------------------------------------
  // 2. The query instances share the projections' segments

  /**
   * Both query instances claim the projections' segments in the one token store. Axon's pooled
   * processors without Axon Server do not balance segments by themselves: whichever instance claims
   * first takes every free segment. Each query instance lets go of the segments beyond its share
   * (SharingSegments), and the other claims them: both end up owning segments, and it stays so.
   * Each instance then processes the segments it owns: reservations whose events fall in the
   * segments of both reach both instances' read models (one database).
   */
  @Test
  @Order(2)
  void theQueryInstancesShareTheProjectionsSegments() throws Exception {
    Map<String, ServiceProcess> initial = awaitEverySegmentClaimed(Set.copyOf(queries));
    log.info("Segments as the query instances first claimed them: {}", initial);

    // Every segment claimed, by both instances, and it stays so (no instance takes them back).
    await()
        .atMost(SETTLE_TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () ->
                assertThat(Set.copyOf(claims(Set.copyOf(queries)).values()))
                    .as("instances owning segments")
                    .containsExactlyInAnyOrderElementsOf(queries));
    Map<String, ServiceProcess> shared = claims(Set.copyOf(queries));
    Thread.sleep(CLAIM_INTERVAL.plusSeconds(1).toMillis());
    assertThat(claims(Set.copyOf(queries))).as("segments a claim interval later").isEqualTo(shared);
    log.info("Segments shared: {}", shared);

    // Both process what they own: a SKU of its own and reservations of it, whose events the
    // segments share out by reservation id (all twelve in one segment: a chance of 1 in 2048).
    String sku = "seg-" + RUN;
    assertThat(register(sku, "{\"initialStock\": 20}").getStatusCode().value()).isEqualTo(201);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      String id = "S-" + RUN + "-" + i;
      assertThat(reserveUntilAnswered(i % 2, id, "su-" + i, sku, null).label())
          .as("reservation %s", id)
          .isEqualTo("reserved");
      ids.add(id);
    }
    for (ServiceProcess query : queries) {
      awaitStock(query, sku, 20, 8, 12);
      await()
          .atMost(SETTLE_TIMEOUT)
          .pollInterval(Duration.ofMillis(250))
          .untilAsserted(
              () -> {
                for (String id : ids) {
                  assertThat(query(query).get("/api/reservations/" + id).getStatusCode().value())
                      .as("reservation %s on %s", id, query)
                      .isEqualTo(200);
                }
              });
    }
    assertThat(claims(Set.copyOf(queries)))
        .as("segments after the reservations were projected")
        .isEqualTo(shared);
  }

  // ---------------------------------------------------------------------------------------------
  // 3. A master restarted empty: the gate is rebuilt once, by one of the two command instances

  @Test
  @Order(3)
  void aMasterRestartedEmptyIsRebuiltOnceAndEveryViewAgreesWithTheRecord() {
    ResponseEntity<JsonNode> replenished =
        sendUntilAnswered(
            0,
            HttpMethod.POST,
            "/api/skus/" + HOT + "/replenishments",
            "{\"replenishmentId\": \"R-" + RUN + "\", \"quantity\": " + REPLENISHED + "}");
    assertThat(replenished.getStatusCode().value()).isEqualTo(201);
    int total = STOCK + REPLENISHED;
    int reserved = reservedEvents(HOT);
    awaitGate(HOT, total, total - reserved, reserved);

    long epochBefore = epoch();
    int home = gate.homeMaster(HOT);
    log.info(
        "Restarting master {} (port {}), home of {}, empty; gate epoch {}",
        home,
        cluster.ports().get(home),
        HOT,
        epochBefore);
    // The command instances are frozen meanwhile: awake, they would notice the restart and
    // rebuild the gate on the node before the cluster's own check that it came back empty. Frozen,
    // they notice it when they go on, by their connections to the node and its missing marker.
    commands.forEach(ServiceProcess::suspend);
    try {
      cluster.restartEmpty(home);
    } finally {
      commands.forEach(ServiceProcess::resume);
    }

    AtomicInteger unavailable = new AtomicInteger();
    long closedSince = System.nanoTime();
    Answer first = reserveUntilAnswered(0, "G-" + RUN + "-0", "gu-0", HOT, unavailable);
    log.info(
        "The first reservation after the restart: {} after {} answers 503 in {} ms",
        first.label(),
        unavailable.get(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedSince));
    assertThat(first.label()).isEqualTo("reserved");
    assertThat(unavailable.get())
        .as("answers 503 while the gate had no marker on the restarted master or was rebuilt")
        .isPositive();
    for (int i = 1; i <= 5; i++) {
      assertThat(reserveUntilAnswered(i % 2, "G-" + RUN + "-" + i, "gu-" + i, HOT, unavailable))
          .extracting(Answer::label)
          .as("reservation %d after the rebuild", i)
          .isEqualTo("reserved");
    }
    assertThat(epoch()).as("rebuilt once, by one of the two instances").isEqualTo(epochBefore + 1);
    assertThat(gateEpochs("G-" + RUN + "-%"))
        .as("the epochs that admitted the reservations made after the restart")
        .containsOnly(epochBefore + 1);
    for (ServiceProcess command : commands) {
      JsonNode readiness = command(command).get("/actuator/health/readiness").getBody();
      assertThat(readiness.get("status").asString()).as("readiness of %s", command).isEqualTo("UP");
      JsonNode gateHealth = readiness.get("components").get("gate").get("details");
      assertThat(gateHealth.get("state").asString()).isEqualTo("OPEN");
      assertThat(gateHealth.get("epoch").asLong()).isEqualTo(epochBefore + 1);
    }

    int recorded = reservedEvents(HOT);
    assertThat(recorded).as("StockReserved events of the hot SKU").isEqualTo(reserved + 6);
    awaitGate(HOT, total, total - recorded, recorded);
    for (ServiceProcess query : queries) {
      awaitStock(query, HOT, total, total - recorded, recorded);
      awaitConsistent(query, HOT, total, total - recorded, recorded);
    }
    // The decision log lost none of the admitted decisions: those the restarted master's streams
    // held are restored from their events.
    List<JsonNode> log = awaitDecisions(queries.get(0), HOT, SALE_REQUESTS + 6);
    assertThat(
            settled(log).stream()
                .filter(d -> "ADMITTED".equals(d.get("outcome").asString()))
                .map(d -> d.get("reservationId").asString())
                .distinct())
        .as("admitted decisions of the hot SKU")
        .hasSize(recorded);
  }

  // ---------------------------------------------------------------------------------------------
  // 4. A query instance dies: the other takes over its segments

  @Test
  @Order(4)
  void whenAQueryInstanceDiesTheOtherTakesOverEverySegmentAndServesWhatComesNext() {
    ServiceProcess victim = queries.get(1);
    ServiceProcess survivor = queries.get(0) == victim ? queries.get(1) : queries.get(0);
    victim.kill(); // SIGKILL: its claims lapse after the claim timeout
    log.info("Killed {}; {} should take over its segments", victim, survivor);

    await()
        .atMost(SETTLE_TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () ->
                assertThat(claims(Set.of(survivor)))
                    .as("segments claimed by %s", survivor)
                    .hasSize(PROJECTIONS.size() * SEGMENTS_PER_PROJECTION));

    int before = reservedEvents(HOT);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String id = "Q-" + RUN + "-" + i;
      assertThat(reserveUntilAnswered(i % 2, id, "qu-" + i, HOT, null).label())
          .as("reservation %s", id)
          .isEqualTo("reserved");
      ids.add(id);
    }
    long total = gateTotal(HOT);
    int recorded = reservedEvents(HOT);
    assertThat(recorded).as("StockReserved events of the hot SKU").isEqualTo(before + ids.size());
    awaitStock(survivor, HOT, total, total - recorded, recorded);
    await()
        .atMost(SETTLE_TIMEOUT)
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              for (String id : ids) {
                JsonNode reservation = query(survivor).get("/api/reservations/" + id).getBody();
                assertThat(reservation.get("status").asString())
                    .as("reservation %s on %s", id, survivor)
                    .isEqualTo("RESERVED");
              }
            });
    awaitGate(HOT, total, total - recorded, recorded);
    awaitConsistent(survivor, HOT, total, total - recorded, recorded);
  }

  // ---------------------------------------------------------------------------------------------
  // 5. A command instance dies under load: the other one's sweeper gives back what it left

  /**
   * One command instance is killed (SIGKILL) in the middle of a load spread over both, when the
   * gate holds admissions not yet known to be recorded. Those whose event the dead instance never
   * stored are abandoned by the sweeper of the instance that lives on (no restart of the dead one),
   * and the gate ends up equal to the record. Whether the kill leaves such an admission behind
   * depends on timing: the run logs how many it left; the checks hold either way.
   */
  @Test
  @Order(5)
  void whenACommandInstanceDiesUnderLoadTheOtherOnesSweeperGivesBackWhatItLeft() throws Exception {
    String sku = "sweep-" + RUN;
    int stock = 1000;
    assertThat(register(sku, "{\"initialStock\": " + stock + ", \"buckets\": " + BUCKETS + "}"))
        .extracting(response -> response.getStatusCode().value())
        .isEqualTo(201);
    ServiceProcess victim = commands.get(1);
    ServiceProcess query =
        queries.stream().filter(ServiceProcess::isAlive).findFirst().orElseThrow();
    long epochBefore = epoch();

    Map<String, List<Answer>> answers = new ConcurrentHashMap<>();
    AtomicInteger sent = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService threads = Executors.newFixedThreadPool(SALE_THREADS);
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < SALE_THREADS; t++) {
      workers.add(
          threads.submit(
              () -> {
                while (!stop.get()) {
                  int n = sent.incrementAndGet();
                  String id = "K-" + RUN + "-" + n;
                  answers
                      .computeIfAbsent(id, key -> new CopyOnWriteArrayList<>())
                      .add(tryReserve(n % 2, id, "ku-" + n, sku));
                }
              }));
    }
    await().atMost(SETTLE_TIMEOUT).until(() -> sent.get() >= 150);
    // Kill while the gate holds admissions whose event may not be stored yet, if that comes soon.
    long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (gate.pendingAdmissions() == 0 && System.nanoTime() < waitUntil) {
      Thread.onSpinWait();
    }
    victim.kill();
    List<String> pendingAtKill = gate.pendingReservations().stream().distinct().toList();
    stop.set(true);
    try {
      for (Future<?> worker : workers) {
        worker.get(2, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
    }
    Map<String, List<String>> eventsAtKill = eventTypes("K-" + RUN + "-%");
    List<String> orphans =
        pendingAtKill.stream().filter(id -> !eventsAtKill.containsKey(id)).sorted().toList();
    List<String> unknown =
        answers.entrySet().stream()
            .filter(entry -> entry.getValue().stream().anyMatch(Answer::unknown))
            .map(Map.Entry::getKey)
            .sorted()
            .toList();
    log.info(
        "Killed {} after {} reservations: {} admissions pending at the kill, {} of them with no"
            + " event: {}; {} reservations without a known outcome",
        victim,
        answers.size(),
        pendingAtKill.size(),
        orphans.size(),
        orphans,
        unknown.size());

    // The survivor's sweeper settles every admission the dead instance left.
    await()
        .atMost(SETTLE_TIMEOUT)
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(() -> assertThat(gate.pendingReservations()).as("pending").isEmpty());
    Map<String, List<String>> events = eventTypes("K-" + RUN + "-%");
    for (String orphan : orphans) {
      assertThat(events.get(orphan))
          .as("events of %s, admitted but not recorded when its instance died", orphan)
          .containsExactly("ReservationAbandoned");
    }
    // A client retries what it got no answer to, on the instance that lives on.
    for (String id : unknown) {
      Answer retried =
          reserveUntilAnswered(0, id, "ku-" + id.substring(id.lastIndexOf('-') + 1), sku, null);
      answers.get(id).add(retried);
      assertThat(retried.status()).as("retry of %s", id).isIn(200, 201, 409);
      if (orphans.contains(id)) {
        // Never recorded, its units given back: nothing is held under the id.
        assertThat(retried.status()).as("retry of abandoned %s", id).isEqualTo(409);
        assertThat(retried.code())
            .as("retry of abandoned %s", id)
            .isEqualTo("reservation-not-active");
      }
    }
    events = eventTypes("K-" + RUN + "-%");
    for (Map.Entry<String, List<Answer>> reservation : answers.entrySet()) {
      List<String> types = events.getOrDefault(reservation.getKey(), List.of());
      assertThat(types)
          .as("events of %s, answered %s", reservation.getKey(), reservation.getValue())
          .isIn(List.of(), List.of("StockReserved"), List.of("ReservationAbandoned"));
      if (reservation.getValue().stream().anyMatch(Answer::reserved)) {
        assertThat(types)
            .as("events of %s, answered reserved", reservation.getKey())
            .containsExactly("StockReserved");
      }
    }

    int recorded = reservedEvents(sku);
    log.info(
        "{} reservations, {} recorded, {} abandoned by the sweeper",
        answers.size(),
        recorded,
        events.values().stream().filter(types -> types.contains("ReservationAbandoned")).count());
    awaitGate(sku, stock, stock - recorded, recorded);
    awaitStock(query, sku, stock, stock - recorded, recorded);
    awaitConsistent(query, sku, stock, stock - recorded, recorded);
    assertThat(epoch()).as("no rebuild for an instance that died").isEqualTo(epochBefore);
  }

  // ---------------------------------------------------------------------------------------------
  // 6. Holds extended and confirmed in part, across partitions

  /**
   * Reservations of two SKUs (one in buckets on every master, so that a reservation's parts lie in
   * different partitions) are extended, confirmed in part, confirmed whole or released, on the
   * command instance that lives on: the gate, the query side's stock, its reconciliation and its
   * reservation view all agree with the record.
   */
  @Test
  @Order(6)
  void holdsExtendedAndConfirmedInPartAcrossPartitionsAgreeEverywhere() {
    String spread = "part-a-" + RUN;
    String single = "part-b-" + RUN;
    assertThat(register(spread, "{\"initialStock\": 30, \"perUserLimit\": 4, \"buckets\": 3}"))
        .extracting(response -> response.getStatusCode().value())
        .isEqualTo(201);
    assertThat(register(single, "{\"initialStock\": 30}"))
        .extracting(response -> response.getStatusCode().value())
        .isEqualTo(201);
    ServiceProcess query =
        queries.stream().filter(ServiceProcess::isAlive).findFirst().orElseThrow();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      String id = "X-" + RUN + "-" + i;
      ids.add(id);
      String body =
          "{\"reservationId\": \""
              + id
              + "\", \"userId\": \"xu-"
              + i
              + "\", \"lines\": [{\"skuId\": \""
              + spread
              + "\", \"quantity\": 2}, {\"skuId\": \""
              + single
              + "\", \"quantity\": 2}]}";
      assertThat(sendUntilAnswered(0, HttpMethod.POST, "/api/reservations", body))
          .extracting(response -> response.getStatusCode().value())
          .isEqualTo(201);
    }
    Map<String, String> extendedTo = new TreeMap<>();
    for (String id : ids.subList(0, 5)) {
      ResponseEntity<JsonNode> extended =
          sendUntilAnswered(
              0, HttpMethod.POST, "/api/reservations/" + id + "/extend", "{\"holdSeconds\": 3600}");
      assertThat(extended.getStatusCode().value()).isEqualTo(200);
      extendedTo.put(id, extended.getBody().get("expiresAt").asString());
    }
    String oneOfSpread = "{\"lines\": [{\"skuId\": \"" + spread + "\", \"quantity\": 1}]}";
    for (String id : ids.subList(0, 4)) {
      assertThat(
              sendUntilAnswered(
                  0, HttpMethod.POST, "/api/reservations/" + id + "/confirm", oneOfSpread))
          .extracting(response -> response.getStatusCode().value())
          .isEqualTo(200);
    }
    assertThat(
            sendUntilAnswered(
                0, HttpMethod.POST, "/api/reservations/" + ids.get(4) + "/confirm", null))
        .extracting(response -> response.getStatusCode().value())
        .isEqualTo(200);
    assertThat(
            sendUntilAnswered(
                0, HttpMethod.POST, "/api/reservations/" + ids.get(5) + "/release", null))
        .extracting(response -> response.getStatusCode().value())
        .isEqualTo(200);

    // Sold 4 x 1 + 2 of the one, 2 of the other; 4 reservations of 2 + 2 still held.
    awaitGate(spread, 30, 16, 8, 6);
    awaitGate(single, 30, 20, 8, 2);
    awaitStock(query, spread, 30, 16, 8, 6);
    awaitStock(query, single, 30, 20, 8, 2);
    awaitConsistent(query, spread, 30, 16, 8, 6);
    awaitConsistent(query, single, 30, 20, 8, 2);
    await()
        .atMost(SETTLE_TIMEOUT)
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              JsonNode view = query(query).get("/api/reservations/" + ids.get(0)).getBody();
              assertThat(view.get("status").asString()).isEqualTo("CONFIRMED");
              assertThat(view.get("expiresAt").asString()).isEqualTo(extendedTo.get(ids.get(0)));
              assertThat(view.get("confirmedLines").toString())
                  .isEqualTo("[{\"skuId\":\"" + spread + "\",\"quantity\":1}]");
            });
    // The allowance of the units given back: 1 of 4 sold, so 3 more.
    String more =
        "{\"reservationId\": \"X-"
            + RUN
            + "-more\", \"userId\": \"xu-0\", \"lines\": [{\"skuId\": \""
            + spread
            + "\", \"quantity\": 3}]}";
    assertThat(sendUntilAnswered(0, HttpMethod.POST, "/api/reservations", more))
        .extracting(response -> response.getStatusCode().value())
        .isEqualTo(201);
    awaitGate(spread, 30, 13, 11, 6);
  }

  /** The simple names of the events of the reservations whose ids match, per id, in order. */
  private static Map<String, List<String>> eventTypes(String idPattern) {
    Map<String, List<String>> types = new TreeMap<>();
    jdbc.query(
        "select aggregate_identifier, payload_type from domain_event_entry"
            + " where aggregate_identifier like ? order by aggregate_identifier, sequence_number",
        row -> {
          String type = row.getString(2);
          types
              .computeIfAbsent(
                  row.getString(1).substring(RESERVATION_STREAM.length()), id -> new ArrayList<>())
              .add(type.substring(type.lastIndexOf('.') + 1));
        },
        RESERVATION_STREAM + idPattern);
    return types;
  }

  /** The gate epochs recorded in the StockReserved events of the reservations whose ids match. */
  private static List<Long> gateEpochs(String idPattern) {
    return jdbc.query(
        "select payload from domain_event_entry where aggregate_identifier like ?"
            + " and payload_type like '%.StockReserved'",
        (row, index) -> JSON.readTree(row.getBytes(1)).get("gateEpoch").asLong(),
        RESERVATION_STREAM + idPattern);
  }

  /** The SKU's total in the gate, once nothing is in flight there. */
  private static long gateTotal(String sku) {
    Map<String, Long> totals =
        await()
            .atMost(SETTLE_TIMEOUT)
            .pollInterval(Duration.ofMillis(250))
            .until(
                () ->
                    gate.pendingAdmissions() == 0 && gate.transfersInFlight() == 0
                        ? gate.totals(sku)
                        : null,
                Objects::nonNull);
    return totals.get("available") + totals.get("reserved") + totals.get("sold");
  }

  // ---------------------------------------------------------------------------------------------
  // HTTP

  /** An outcome of a reservation: reserved (201, or 200 for one stored already), or the answer. */
  private record Answer(int status, String code, String reservationStatus) {

    static Answer of(ResponseEntity<JsonNode> response) {
      JsonNode body = response.getBody();
      String type = body == null || body.get("type") == null ? null : body.get("type").asString();
      String code = type == null ? null : type.substring(type.lastIndexOf('/') + 1);
      String status =
          body == null || body.get("status") == null || !body.get("status").isString()
              ? null
              : body.get("status").asString();
      return new Answer(response.getStatusCode().value(), code, status);
    }

    static final Answer NONE = new Answer(-1, null, null);

    boolean reserved() {
      return status == 201 || status == 200 && "RESERVED".equals(reservationStatus);
    }

    /** No answer, or a 5xx: the reservation may or may not have been made. */
    boolean unknown() {
      return status < 0 || status >= 500;
    }

    String label() {
      return reserved() ? "reserved" : status + (code == null ? "" : " " + code);
    }

    @Override
    public String toString() {
      return status < 0 ? "no answer" : label();
    }
  }

  /** Reserves one unit, once; an instance that does not answer is {@link Answer#NONE}. */
  private static Answer tryReserve(int instance, String id, String user, String sku) {
    try {
      return Answer.of(
          command(commands.get(instance))
              .send(HttpMethod.POST, "/api/reservations", reservation(id, user, sku)));
    } catch (RuntimeException noAnswer) {
      return Answer.NONE;
    }
  }

  private static String reservation(String id, String user, String sku) {
    return "{\"reservationId\": \""
        + id
        + "\", \"userId\": \""
        + user
        + "\", \"lines\": [{\"skuId\": \""
        + sku
        + "\", \"quantity\": 1}]}";
  }

  /**
   * Reserves one unit, retrying with the same reservation id while the answer is 503 (nothing was
   * reserved then), as a client is told to.
   */
  private static Answer reserveUntilAnswered(
      int instance, String id, String user, String sku, AtomicInteger unavailable) {
    String body = reservation(id, user, sku);
    long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
    while (true) {
      Answer answer =
          Answer.of(
              command(commands.get(instance)).send(HttpMethod.POST, "/api/reservations", body));
      if (answer.status() != 503) {
        return answer;
      }
      if (unavailable != null) {
        unavailable.incrementAndGet();
      }
      assertThat(System.nanoTime())
          .as("reservation %s answered 503 for %s", id, SETTLE_TIMEOUT)
          .isLessThan(deadline);
      sleep(200);
    }
  }

  /** Registers a SKU on the first command instance; 503 (a gate still opening) is retried. */
  private static ResponseEntity<JsonNode> register(String sku, String body) {
    return sendUntilAnswered(0, HttpMethod.PUT, "/api/skus/" + sku, body);
  }

  private static ResponseEntity<JsonNode> sendUntilAnswered(
      int instance, HttpMethod method, String path, String body) {
    return await()
        .atMost(SETTLE_TIMEOUT)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> command(commands.get(instance)).send(method, path, body),
            response -> response.getStatusCode().value() != 503);
  }

  private static ApiClient command(ServiceProcess command) {
    return client(command);
  }

  private static ApiClient query(ServiceProcess query) {
    return client(query);
  }

  /** One client per service (each holds an HTTP client with its connections and threads). */
  private static ApiClient client(ServiceProcess service) {
    return clients.computeIfAbsent(service.port(), ApiClient::new);
  }

  /** The query instance's stock view of the SKU becomes these numbers, nothing sold. */
  private static void awaitStock(
      ServiceProcess query, String sku, long total, long available, long reserved) {
    awaitStock(query, sku, total, available, reserved, 0);
  }

  /** The query instance's stock view of the SKU becomes these numbers. */
  private static void awaitStock(
      ServiceProcess query, String sku, long total, long available, long reserved, long sold) {
    await()
        .atMost(SETTLE_TIMEOUT)
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              ResponseEntity<JsonNode> stock = query(query).get("/api/stock/" + sku);
              assertThat(stock.getStatusCode().value())
                  .as("stock of %s on %s", sku, query)
                  .isEqualTo(200);
              assertThat(numbers(stock.getBody()))
                  .as("total, available, reserved, sold of %s on %s", sku, query)
                  .containsExactly(total, available, reserved, sold);
            });
  }

  /** The query instance's reconciliation of the SKU becomes CONSISTENT, nothing sold. */
  private static void awaitConsistent(
      ServiceProcess query, String sku, long total, long available, long reserved) {
    awaitConsistent(query, sku, total, available, reserved, 0);
  }

  /** The query instance's reconciliation of the SKU becomes CONSISTENT, with these numbers. */
  private static void awaitConsistent(
      ServiceProcess query, String sku, long total, long available, long reserved, long sold) {
    await()
        .atMost(SETTLE_TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              JsonNode report = query(query).get("/api/reconciliation/skus/" + sku).getBody();
              assertThat(report.get("gate").get("marker").asString())
                  .as("the gate's marker as %s reads it", query)
                  .isEqualTo("OPEN");
              JsonNode line = report.get("skus").get(0);
              assertThat(line.get("status").asString())
                  .as("reconciliation of %s on %s: %s", sku, query, line)
                  .isEqualTo("CONSISTENT");
              for (String side : List.of("gate", "events", "readModel")) {
                assertThat(numbers(line.get(side)))
                    .as("%s numbers of %s on %s", side, sku, query)
                    .containsExactly(total, available, reserved, sold);
              }
            });
  }

  private static List<Long> numbers(JsonNode numbers) {
    return List.of(
        numbers.get("total").asLong(),
        numbers.get("available").asLong(),
        numbers.get("reserved").asLong(),
        numbers.get("sold").asLong());
  }

  // ---------------------------------------------------------------------------------------------
  // Redis and the database

  /** The gate's counters of the SKU, summed over its buckets, become these numbers, none sold. */
  private static void awaitGate(String sku, long total, long available, long reserved) {
    awaitGate(sku, total, available, reserved, 0);
  }

  /** The gate's counters of the SKU, summed over its buckets, become these numbers. */
  private static void awaitGate(String sku, long total, long available, long reserved, long sold) {
    await()
        .atMost(SETTLE_TIMEOUT)
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              assertThat(gate.pendingAdmissions()).as("admissions pending").isZero();
              assertThat(gate.transfersInFlight()).as("moves between buckets").isZero();
              Map<String, Long> totals = gate.totals(sku);
              assertThat(totals)
                  .as("the gate's counters of %s over its buckets", sku)
                  .containsEntry("available", available)
                  .containsEntry("reserved", reserved)
                  .containsEntry("sold", sold)
                  .containsEntry("outgoing", 0L);
              assertThat(totals.get("available") + totals.get("reserved") + totals.get("sold"))
                  .isEqualTo(total);
            });
  }

  /** StockReserved events naming the SKU (every reservation here is of one unit of one SKU). */
  private static int reservedEvents(String sku) {
    return jdbc.queryForObject(
        "select count(*) from domain_event_entry where payload_type like '%.StockReserved'"
            + " and convert(payload using utf8mb4) like ?",
        Integer.class, "%\"skuId\":\"" + sku + "\"%");
  }

  private static long epoch() {
    return jdbc.queryForObject("select epoch from gate_epoch where id = 1", Long.class);
  }

  /**
   * The projections' live claims ({@code processor/segment}, younger than the claim timeout), by
   * the instance among {@code instances} that holds each; a claim of another owner fails the check.
   */
  private static Map<String, ServiceProcess> claims(Set<ServiceProcess> instances) {
    Map<String, ServiceProcess> claims = new TreeMap<>();
    Instant expired = Instant.now().minus(CLAIM_TIMEOUT);
    jdbc.query(
        "select processor_name, segment, owner, timestamp from token_entry"
            + " where processor_name in ('stock-projection', 'reservation-projection')"
            + " and owner is not null",
        row -> {
          if (claimedAt(row.getString("timestamp")).isBefore(expired)) {
            return;
          }
          String owner = row.getString("owner");
          ServiceProcess instance =
              instances.stream()
                  .filter(candidate -> owner.equals(ownerName(candidate)))
                  .findFirst()
                  .orElse(null);
          if (instance != null) {
            claims.put(row.getString("processor_name") + "/" + row.getInt("segment"), instance);
          }
        });
    return claims;
  }

  /** Waits until every segment of both projections is claimed by one of these instances. */
  private static Map<String, ServiceProcess> awaitEverySegmentClaimed(
      Set<ServiceProcess> instances) {
    return await()
        .atMost(SETTLE_TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> claims(instances),
            claims -> claims.size() == PROJECTIONS.size() * SEGMENTS_PER_PROJECTION);
  }

  /**
   * The owner an instance's claims carry: the query side names itself after the JVM ({@code
   * pid@host}) and a random suffix; the test knows the pid, and reads the rest from the claims.
   */
  private static String ownerName(ServiceProcess query) {
    List<String> owners =
        jdbc.queryForList(
            "select distinct owner from token_entry where owner like ?",
            String.class,
            query.pid() + "@%");
    if (owners.isEmpty()) {
      // Not claiming anything (yet): no claim can be its.
      return "(none of " + query + ")";
    }
    assertThat(owners).as("owners of %s's claims", query).hasSize(1);
    return owners.get(0);
  }

  private static Instant claimedAt(String timestamp) {
    try {
      return Instant.parse(timestamp);
    } catch (DateTimeParseException unreadable) {
      return Instant.MAX;
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
