package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.localinfra.Endpoints;
import io.stockade.localinfra.LocalInfrastructure;
import io.stockade.platform.testing.TestTokens;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 4, end to end: the command side runs as a real child JVM and is killed with SIGKILL in the
 * middle of a concurrent load of reservations, confirmations and releases, then started again on
 * the same Redis and database. After the recovery bound the gate's counters equal what the events
 * say, no reservation is recorded twice, and no SKU has more reserved and sold than its stock.
 *
 * <p>A plain JUnit test (no Spring context in this JVM): the service under test is the child
 * process, with a Redis of its own and a database of its own ({@value #DATABASE}), dropped and
 * created again at every run.
 */
class CrashRecoveryIntegrationTest {

  private static final Logger log = LoggerFactory.getLogger(CrashRecoveryIntegrationTest.class);

  private static final String DATABASE = "stockade_test_crash";
  private static final String LOOPBACK = "127.0.0.1";
  private static final int DEFAULT_DATABASE_PORT = 3306;
  private static final String PENDING = "stockade:{g0}:gate:pending";
  private static final String INTENT_PREFIX = "stockade:{g0}:reservation:";
  private static final String EVENTS = "io.stockade.api.reservation.";

  private static final int STOCK = 40;
  private static final List<String> SKUS = List.of("crash-a", "crash-b", "crash-c");

  /** The last SKU has a per-user limit, so that the gate's allowance bookkeeping is loaded too. */
  private static final int LIMIT = 6;

  private static final int USERS = 25;
  private static final int THREADS = 16;
  private static final int REQUESTS_BEFORE_KILL = 300;

  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(60);

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Path WORK = Path.of("target", "crash-recovery").toAbsolutePath();

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  private final Map<String, Tracked> reservations = new ConcurrentHashMap<>();
  private final List<String> started = new ArrayList<>();
  private final List<String> active = new ArrayList<>();
  private final Map<String, Ending> endings = new ConcurrentHashMap<>();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger sequence = new AtomicInteger();

  private EmbeddedRedis redisServer;
  private RedisClient redisClient;
  private StatefulRedisConnection<String, String> redisConnection;
  private RedisCommands<String, String> redis;
  private LocalInfrastructure localInfrastructure;
  private String jdbcUrl;
  private JdbcTemplate jdbc;
  private final List<Path> childLogs = new ArrayList<>();
  private Process child;
  private volatile int port;

  @Test
  void aServiceKilledUnderLoadComesBackWithTheGateEqualToTheRecord() throws Exception {
    try {
      run();
    } catch (Throwable failure) {
      for (Path file : childLogs) {
        System.err.println("----- last lines of " + file + " -----");
        System.err.println(tail(file, 80));
      }
      throw failure;
    }
  }

  private void run() throws Exception {
    Files.createDirectories(WORK);
    prepareDatabase();
    redisServer = RecordedEvents.ownRedis("crash-redis");
    redisClient = RedisClient.create(RedisURI.create(LOOPBACK, redisServer.port()));
    redisConnection = redisClient.connect();
    redis = redisConnection.sync();

    startChild(1);
    for (int i = 0; i < SKUS.size(); i++) {
      String limit = i == SKUS.size() - 1 ? String.valueOf(LIMIT) : "null";
      Answer registered =
          send(
              "PUT",
              "/api/skus/" + SKUS.get(i),
              "{\"initialStock\": " + STOCK + ", \"perUserLimit\": " + limit + "}");
      assertThat(registered.status()).as("registering %s", SKUS.get(i)).isEqualTo(201);
    }

    // The load, and the kill in its middle.
    AtomicBoolean stop = new AtomicBoolean();
    AtomicBoolean down = new AtomicBoolean();
    ExecutorService load = Executors.newFixedThreadPool(THREADS);
    for (int i = 0; i < THREADS; i++) {
      load.execute(() -> work(stop, down));
    }
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> requests.get() >= REQUESTS_BEFORE_KILL);
    // Kill when the gate has admissions whose event may not be stored yet, if that comes soon.
    long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (redis.zcard(PENDING) == 0 && System.nanoTime() < waitUntil) {
      Thread.onSpinWait();
    }
    int requestsAtKill = requests.get();
    child.destroyForcibly(); // SIGKILL on Linux
    assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("killed child exited").isTrue();
    down.set(true);
    Thread.sleep(500); // requests meet a dead service for a while
    stop.set(true);
    load.shutdown();
    assertThat(load.awaitTermination(60, TimeUnit.SECONDS)).as("load stopped").isTrue();

    // Admissions the gate holds with no event at all: only the sweeper can give their units back.
    List<String> pendingAtKill =
        redis.zrange(PENDING, 0, -1).stream().map(CrashRecoveryIntegrationTest::idOf).toList();
    Map<String, List<String>> eventsAtKill = eventTypesById();
    List<String> orphans =
        pendingAtKill.stream().filter(id -> !eventsAtKill.containsKey(id)).sorted().toList();
    List<String> unknown =
        reservations.values().stream()
            .filter(Tracked::everUnknown)
            .map(Tracked::id)
            .sorted()
            .toList();
    log.info(
        "Killed after {} requests ({} in all): {} reservation ids, {} with an unknown outcome,"
            + " {} admitted by the gate and pending, {} of them with no event: {}",
        requestsAtKill,
        requests.get(),
        reservations.size(),
        unknown.size(),
        pendingAtKill.size(),
        orphans.size(),
        orphans);

    // Start again on the same Redis and database; the sweeper repairs what the crash left.
    startChild(2);
    await()
        .atMost(RECOVERY_TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(redis.zrange(PENDING, 0, -1))
                    .as("admissions not yet known to be recorded")
                    .isEmpty());
    Map<String, List<String>> afterSweep = eventTypesById();
    for (String orphan : orphans) {
      assertThat(afterSweep.get(orphan))
          .as("events of %s, admitted but not recorded when the service died", orphan)
          .containsExactly("ReservationAbandoned");
    }
    long abandoned =
        afterSweep.values().stream()
            .filter(types -> types.contains("ReservationAbandoned"))
            .count();
    log.info(
        "The sweeper abandoned {} admissions ({} seen unrecorded at the kill)",
        abandoned,
        orphans.size());

    // Callers retry what they do not know the outcome of, with the same content.
    for (String id : unknown) {
      Tracked reservation = reservations.get(id);
      Answer answer = send("POST", "/api/reservations", reservation.body());
      reservation.answered(answer);
      assertThat(answer.unknown())
          .as("retry of %s after the restart answered %s", id, answer)
          .isFalse();
      if (orphans.contains(id)) {
        // Never recorded, its units given back: nothing is held under the id.
        assertThat(answer.status()).as("late retry of abandoned %s", id).isEqualTo(409);
        assertThat(answer.body().get("type").asString())
            .as("late retry of abandoned %s", id)
            .endsWith("/reservation-not-active");
        assertThat(answer.body().get("releaseReason").asString()).isEqualTo("NOT_RECORDED");
      }
    }

    // After the recovery bound the gate equals the record.
    await()
        .atMost(RECOVERY_TIMEOUT)
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(this::gateEqualsRecord);
    checkEachReservation();
    checkEachSku();
    checkAnswers(abandoned);
  }

  // ---------------------------------------------------------------------------------------------
  // The load

  private void work(AtomicBoolean stop, AtomicBoolean down) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (!stop.get()) {
      int dice = random.nextInt(100);
      Answer answer;
      if (dice < 55) {
        answer = reserveNew(random);
      } else if (dice < 65) {
        answer = retry(random);
      } else if (dice < 92) {
        answer = end(random, "release");
      } else {
        answer = end(random, "confirm");
      }
      if (answer == null) {
        continue;
      }
      requests.incrementAndGet();
      if (down.get() && answer.unknown()) {
        sleep(20);
      }
    }
  }

  private Answer reserveNew(ThreadLocalRandom random) {
    String id = "O-" + sequence.incrementAndGet();
    StringBuilder lines = new StringBuilder();
    int count = 1 + random.nextInt(2);
    for (int i = 0; i < count; i++) {
      if (i > 0) {
        lines.append(',');
      }
      // Two lines may name the same SKU: the service merges them.
      lines
          .append("{\"skuId\":\"")
          .append(SKUS.get(random.nextInt(SKUS.size())))
          .append("\",\"quantity\":")
          .append(1 + random.nextInt(3))
          .append('}');
    }
    String body =
        "{\"reservationId\":\""
            + id
            + "\",\"userId\":\"u-"
            + random.nextInt(USERS)
            + "\",\"lines\":["
            + lines
            + "],\"holdSeconds\":900}";
    Tracked reservation = new Tracked(id, body);
    reservations.put(id, reservation);
    synchronized (started) {
      started.add(id);
    }
    return reserve(reservation);
  }

  /** The same request again, sometimes while the first one is still under way. */
  private Answer retry(ThreadLocalRandom random) {
    String id;
    synchronized (started) {
      if (started.isEmpty()) {
        return null;
      }
      int recent = Math.min(started.size(), 40);
      id = started.get(started.size() - 1 - random.nextInt(recent));
    }
    return reserve(reservations.get(id));
  }

  private Answer reserve(Tracked reservation) {
    Answer answer = send("POST", "/api/reservations", reservation.body());
    reservation.answered(answer);
    if (answer.status() == 201) {
      synchronized (active) {
        active.add(reservation.id());
      }
    }
    return answer;
  }

  private Answer end(ThreadLocalRandom random, String operation) {
    String id;
    synchronized (active) {
      if (active.isEmpty()) {
        return null;
      }
      id = active.remove(random.nextInt(active.size()));
    }
    Ending ending = new Ending(operation);
    endings.put(id, ending);
    Answer answer = send("POST", "/api/reservations/" + id + "/" + operation, null);
    ending.answered(answer);
    return answer;
  }

  // ---------------------------------------------------------------------------------------------
  // What must hold once recovered

  /** Per SKU, the gate's counters equal the units the events say are reserved and sold. */
  private void gateEqualsRecord() {
    assertThat(redis.zcard(PENDING)).as("pending admissions").isZero();
    Map<String, long[]> record = unitsFromEvents();
    for (String sku : SKUS) {
      Map<String, String> gate = redis.hgetall("stockade:{g0}:sku:" + sku);
      long[] units = record.getOrDefault(sku, new long[2]);
      assertThat(number(gate, "reserved"))
          .as("gate reserved of %s vs the events", sku)
          .isEqualTo(units[0]);
      assertThat(number(gate, "sold")).as("gate sold of %s vs the events", sku).isEqualTo(units[1]);
    }
  }

  private void checkEachReservation() {
    Map<String, List<String>> events = eventTypesById();
    for (Map.Entry<String, List<String>> stream : events.entrySet()) {
      List<String> types = stream.getValue();
      assertThat(types).as("events of %s", stream.getKey()).isNotEmpty();
      assertThat(types.get(0))
          .as("first event of %s", stream.getKey())
          .isIn("StockReserved", "ReservationAbandoned");
      assertThat(types.stream().filter(type -> type.equals("StockReserved")).count())
          .as("StockReserved of %s", stream.getKey())
          .isEqualTo(types.get(0).equals("StockReserved") ? 1 : 0);
      assertThat(types.size())
          .as("events of %s: %s", stream.getKey(), types)
          .isLessThanOrEqualTo(2);
    }
    for (Tracked reservation : reservations.values()) {
      List<String> types = events.getOrDefault(reservation.id(), List.of());
      long reserved = types.stream().filter(type -> type.equals("StockReserved")).count();
      if (reservation.answeredReserved()) {
        assertThat(reserved)
            .as("StockReserved of %s, answered %s", reservation.id(), reservation.answers())
            .isEqualTo(1);
      }
      if (!reservation.everAccepted() && !reservation.everUnknown()) {
        assertThat(types)
            .as("events of %s, only ever refused: %s", reservation.id(), reservation.answers())
            .isEmpty();
      }
    }
    for (Map.Entry<String, Ending> ending : endings.entrySet()) {
      if (ending.getValue().succeeded()) {
        String expected =
            ending.getValue().operation().equals("confirm") ? "StockConfirmed" : "StockReleased";
        assertThat(events.get(ending.getKey()))
            .as(
                "events of %s, whose %s answered 200",
                ending.getKey(), ending.getValue().operation())
            .containsExactly("StockReserved", expected);
      }
    }
  }

  private void checkEachSku() {
    Map<String, long[]> record = unitsFromEvents();
    for (String sku : SKUS) {
      Map<String, String> gate = redis.hgetall("stockade:{g0}:sku:" + sku);
      long available = number(gate, "available");
      long reserved = number(gate, "reserved");
      long sold = number(gate, "sold");
      long[] units = record.getOrDefault(sku, new long[2]);
      log.info(
          "{}: gate available {} reserved {} sold {}; events reserved {} sold {}",
          sku,
          available,
          reserved,
          sold,
          units[0],
          units[1]);
      assertThat(available).as("available of %s", sku).isNotNegative();
      assertThat(reserved).as("reserved of %s", sku).isNotNegative();
      assertThat(available + reserved + sold).as("total of %s", sku).isEqualTo(STOCK);
      assertThat(units[0] + units[1])
          .as("reserved + sold of %s by the events", sku)
          .isLessThanOrEqualTo(STOCK);
      long held =
          redis.hgetall("stockade:{g0}:sku:" + sku + ":holders").values().stream()
              .mapToLong(Long::parseLong)
              .sum();
      assertThat(held).as("units the users of %s hold", sku).isEqualTo(reserved + sold);
    }
  }

  private void checkAnswers(long abandoned) {
    Map<String, Integer> answers = new TreeMap<>();
    Map<String, List<String>> reusedWithSameContent = new TreeMap<>();
    for (Tracked reservation : reservations.values()) {
      for (String answer : reservation.answers()) {
        answers.merge(answer, 1, Integer::sum);
      }
      if (reservation.answers().contains("422")) {
        reusedWithSameContent.put(reservation.id(), reservation.answers());
      }
    }
    log.info(
        "Reservation answers: {}; endings: {}; abandoned by the sweeper: {}",
        answers,
        endings.values().stream()
            .collect(
                Collectors.groupingBy(
                    e -> e.operation() + " " + e.answer(), TreeMap::new, Collectors.counting())),
        abandoned);
    // Every request of one id carries the same content, so the contract's 422 does not apply,
    // also when a request races a retry of itself.
    assertThat(reusedWithSameContent)
        .as("answered 422 reservation-id-reused with unchanged content (id: answers)")
        .isEmpty();
  }

  /** Per SKU: {reserved, sold} by the reservation events. */
  private Map<String, long[]> unitsFromEvents() {
    Map<String, long[]> units = new HashMap<>();
    jdbc.query(
        "select payload_type, payload from domain_event_entry where payload_type like ?"
            + " order by global_index",
        row -> {
          String type = simpleName(row.getString(1));
          JsonNode lines = JSON.readTree(row.getBytes(2)).get("lines");
          for (int i = 0; i < lines.size(); i++) {
            long[] sku =
                units.computeIfAbsent(lines.get(i).get("skuId").asString(), key -> new long[2]);
            long quantity = lines.get(i).get("quantity").asLong();
            switch (type) {
              case "StockReserved":
                sku[0] += quantity;
                break;
              case "StockConfirmed":
                sku[0] -= quantity;
                sku[1] += quantity;
                break;
              case "StockReleased":
                sku[0] -= quantity;
                break;
              default: // ReservationAbandoned: nothing was ever reserved in the record
            }
          }
        },
        EVENTS + "%");
    return units;
  }

  /** The reservation events' simple type names, per reservation id, in order. */
  private Map<String, List<String>> eventTypesById() {
    Map<String, List<String>> types = new HashMap<>();
    jdbc.query(
        "select aggregate_identifier, payload_type from domain_event_entry"
            + " where payload_type like ? order by aggregate_identifier, sequence_number",
        row -> {
          types
              .computeIfAbsent(
                  row.getString(1).substring(ReservationEvent.STREAM_PREFIX.length()),
                  id -> new ArrayList<>())
              .add(simpleName(row.getString(2)));
        },
        EVENTS + "%");
    return types;
  }

  // ---------------------------------------------------------------------------------------------
  // The child JVM, its Redis and its database

  private void startChild(int generation) throws IOException {
    port = freePort();
    Path logFile = WORK.resolve("command-side-" + generation + ".log");
    childLogs.add(logFile);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Dserver.port=" + port);
    command.add("-Dspring.data.redis.host=" + LOOPBACK);
    command.add("-Dspring.data.redis.port=" + redisServer.port());
    command.add("-Dspring.datasource.url=" + jdbcUrl);
    command.add("-Dspring.datasource.username=root");
    command.add("-Dspring.datasource.password=");
    command.add("-Dstockade.local-infra.database=" + DATABASE);
    forward(command, "stockade.local-infra.probe-default-ports");
    forward(command, "stockade.local-infra.data-dir");
    forward(command, "java.io.tmpdir");
    forward(command, "stockade.rate-limit.enabled");
    // The build switches the warm-up before readiness off for the tests, and so for their children.
    forward(command, "stockade.warm-up.enabled");
    command.add("-Daxoniq.update-checker.disabled=true");
    command.add("-Ddisable-axoniq-console-message=true");
    command.add("-Dstockade.recovery.enabled=true");
    command.add("-Dstockade.recovery.unrecorded-after=2s");
    command.add("-Dstockade.recovery.interval=500ms");
    command.addAll(TestTokens.SERVICE_PROPERTIES);
    command.add(CommandSideApplication.class.getName());
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(logFile.toFile());
    // The test JVM's class path (surefire's real one, not its booter jar), without a long argument.
    builder.environment().put("CLASSPATH", System.getProperty("java.class.path"));
    builder.environment().put("AXONIQ_UPDATE_CHECKER_DISABLED", "true");
    child = builder.start();
    log.info("Started command side #{} as pid {} on port {}", generation, child.pid(), port);
    Process current = child;
    await()
        .atMost(START_TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              if (!current.isAlive()) {
                throw new IllegalStateException(
                    "command side #" + generation + " exited with " + current.exitValue());
              }
              return send("GET", "/actuator/health", null).status() == 200;
            });
  }

  private static void forward(List<String> command, String property) {
    String value = System.getProperty(property);
    if (value != null) {
      command.add("-D" + property + "=" + value);
    }
  }

  /**
   * Where the database server is, decided as local-infra decides it: the one on 3306 when probing
   * is on and it answers, else the embedded one of the data folder (started here if need be). The
   * test's database is dropped and created again.
   */
  private void prepareDatabase() throws SQLException {
    String host;
    int databasePort;
    boolean mariaDb;
    if (Boolean.getBoolean("stockade.local-infra.probe-default-ports")
        && LocalInfrastructure.answers(LOOPBACK, DEFAULT_DATABASE_PORT)) {
      host = LOOPBACK;
      databasePort = DEFAULT_DATABASE_PORT;
      mariaDb = LocalInfrastructure.isMariaDb(LOOPBACK, DEFAULT_DATABASE_PORT);
    } else {
      localInfrastructure =
          LocalInfrastructure.attachOrStart(
              Path.of(System.getProperty("stockade.local-infra.data-dir", ".stockade")));
      Endpoints endpoints = localInfrastructure.endpoints();
      host = endpoints.databaseHost();
      databasePort = endpoints.databasePort();
      mariaDb = true;
    }
    String server = (mariaDb ? "jdbc:mariadb://" : "jdbc:mysql://") + host + ":" + databasePort;
    jdbcUrl =
        server
            + "/"
            + DATABASE
            + "?createDatabaseIfNotExist=true&connectionTimeZone=UTC"
            + "&forceConnectionTimeZoneToSession=true"
            + (mariaDb ? "" : "&rewriteBatchedStatements=true");
    try (Connection connection = DriverManager.getConnection(server + "/", "root", "");
        Statement statement = connection.createStatement()) {
      statement.execute("DROP DATABASE IF EXISTS " + DATABASE);
      statement.execute("CREATE DATABASE " + DATABASE);
    }
    jdbc = new JdbcTemplate(new DriverManagerDataSource(jdbcUrl, "root", ""));
  }

  @AfterEach
  void stopEverything() {
    if (child != null) {
      child.descendants().forEach(ProcessHandle::destroyForcibly);
      child.destroyForcibly();
      try {
        child.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (redisConnection != null) {
      redisConnection.close();
    }
    if (redisClient != null) {
      redisClient.shutdown();
    }
    if (redisServer != null) {
      redisServer.stop();
    }
    if (localInfrastructure != null) {
      localInfrastructure.close();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  /** An HTTP answer: a status, or -1 when there was none (connection refused, reset, timeout). */
  private record Answer(int status, JsonNode body) {

    boolean unknown() {
      return status < 0 || status >= 500;
    }

    String reservationStatus() {
      return body == null || body.get("status") == null ? null : body.get("status").asString();
    }

    String label() {
      if (status == 200 && reservationStatus() != null) {
        return "200 " + reservationStatus();
      }
      return status < 0 ? "no answer" : String.valueOf(status);
    }

    @Override
    public String toString() {
      return status + " " + body;
    }
  }

  /** A reservation id, its one content, and every answer it got. */
  private static final class Tracked {

    private final String id;
    private final String body;
    private final List<Answer> answers = new ArrayList<>();

    Tracked(String id, String body) {
      this.id = id;
      this.body = body;
    }

    String id() {
      return id;
    }

    String body() {
      return body;
    }

    synchronized void answered(Answer answer) {
      answers.add(answer);
    }

    synchronized List<String> answers() {
      return answers.stream().map(Answer::label).toList();
    }

    synchronized boolean everUnknown() {
      return answers.stream().anyMatch(Answer::unknown);
    }

    /** Answered 201, or 200 with the reservation as reserved or confirmed. */
    synchronized boolean answeredReserved() {
      return answers.stream()
          .anyMatch(
              answer ->
                  answer.status() == 201
                      || answer.status() == 200
                          && Set.of("RESERVED", "CONFIRMED").contains(answer.reservationStatus()));
    }

    synchronized boolean everAccepted() {
      return answers.stream().anyMatch(answer -> answer.status() == 200 || answer.status() == 201);
    }
  }

  /** A confirmation or release, sent once, and its answer. */
  private static final class Ending {

    private final String operation;
    private volatile Answer answer;

    Ending(String operation) {
      this.operation = operation;
    }

    String operation() {
      return operation;
    }

    void answered(Answer answer) {
      this.answer = answer;
    }

    String answer() {
      return answer == null ? "none" : answer.label();
    }

    boolean succeeded() {
      return answer != null && answer.status() == 200;
    }
  }

  private Answer send(String method, String path, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://" + LOOPBACK + ":" + port + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + TestTokens.ALL_ROLES);
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body));
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return new Answer(-1, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Answer(-1, null);
    }
    JsonNode json = null;
    if (!response.body().isBlank()) {
      try {
        json = JSON.readTree(response.body());
      } catch (RuntimeException notJson) {
        json = null;
      }
    }
    return new Answer(response.statusCode(), json);
  }

  private static String idOf(String intentKey) {
    return intentKey.substring(INTENT_PREFIX.length());
  }

  private static String simpleName(String type) {
    return type.substring(type.lastIndexOf('.') + 1);
  }

  private static long number(Map<String, String> hash, String field) {
    String value = hash.get(field);
    return value == null ? 0 : Long.parseLong(value);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join(
          System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | RuntimeException e) {
      return "(cannot read " + file + ": " + e + ")";
    }
  }
}
