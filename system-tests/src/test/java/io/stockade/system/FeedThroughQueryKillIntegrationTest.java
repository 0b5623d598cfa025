package io.stockade.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.localinfra.EmbeddedKafka;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.StrictJson;
import io.stockade.platform.testing.TestTokens;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
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
import java.util.function.IntSupplier;
import java.util.stream.Collectors;
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
import tools.jackson.databind.JsonNode;

/**
 * A downstream consumer of the event feed reading through a kill -9 of the query side: the command
 * side and the query side launched from their packaged jars on one plain Redis and a database of
 * the test's own ({@value #DATABASE}); a load of reservations confirmed, released and extended over
 * several SKUs from a few threads; two consumers following the feed from position 0 as docs/api.md
 * shows them (one asking {@code GET /api/events?after=next} page after page, one reading {@code GET
 * /api/events/stream} and reconnecting with {@code Last-Event-ID}), each resuming from the last
 * position it holds when an answer fails. Mid-stream the query side is killed with SIGKILL and
 * launched again on its port; the consumers keep asking until it answers. Once the load has stopped
 * and they have caught up, each has received every event of the event store exactly once, in the
 * store's order.
 *
 * <p>The global index has holes, as the command side leaves them: inserts rolled back during the
 * load (a lost append, a withdrawn reservation), and one event whose transaction takes its index
 * before the kill and commits only after the restart, events above it stored meanwhile (a slow
 * transaction). The restarted query side, whose settled horizon starts again from 0, holds the
 * consumers at that hole until the event is there, and hands it on in its place.
 */
class FeedThroughQueryKillIntegrationTest {

  private static final Logger log =
      LoggerFactory.getLogger(FeedThroughQueryKillIntegrationTest.class);

  private static final String DATABASE = "stockade_test_feed";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(300);
  private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(90);

  private static final int SKUS = 4;
  private static final int LOAD_THREADS = 3;

  /** How many events each consumer has received before the kill. */
  private static final int RECEIVED_BEFORE_KILL = 300;

  /** How many events each consumer receives from the restarted query side before the load ends. */
  private static final int RECEIVED_AFTER_RESTART = 300;

  /** A rolled-back insert, leaving a hole in the global index, every so many reservations. */
  private static final int RESERVATIONS_PER_HOLE = 40;

  /** What a consumer waits before it asks again after a failure, or after an empty page. */
  private static final Duration RETRY_PAUSE = Duration.ofMillis(200);

  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final String READER = TestTokens.withRoles("reader");

  private static SystemServices system;
  private static SystemDatabase database;
  private static EmbeddedRedis redis;
  private static EmbeddedKafka kafka;
  private static ServiceProcess command;
  private static ServiceProcess query;
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
  static void startTheSystem() throws Exception {
    system = new SystemServices(RUN);
    database = SystemDatabase.create(DATABASE);
    jdbc = database.jdbc();
    redis = EmbeddedRedis.start(SystemServices.WORK.resolve("redis-" + RUN));
    kafka = EmbeddedKafka.start(SystemServices.WORK.resolve("kafka-" + RUN));
    List<String> common = new ArrayList<>(database.serviceArguments());
    common.add("--spring.data.redis.host=127.0.0.1");
    common.add("--spring.data.redis.port=" + redis.port());
    List<String> commandArguments = new ArrayList<>(common);
    // One user and one client send the whole load.
    commandArguments.add("--stockade.rate-limit.enabled=false");
    List<String> queryArguments = new ArrayList<>(common);
    // Reports run when asked for: no scheduled check competing for the two cores.
    queryArguments.add("--stockade.reconciliation.interval=0s");
    // The Kafka publisher, killed with the rest of the query side.
    queryArguments.add("--stockade.kafka.bootstrap-servers=" + kafka.bootstrapServers());
    command = system.service("command-side", "command-side", commandArguments);
    query = system.service("query-side", "query-side", queryArguments);
    try {
      // One at a time: two JVMs starting together on two cores can slow a first statement beyond
      // the services' 5 s transaction timeout.
      for (ServiceProcess service : List.of(command, query)) {
        service.launch();
        service.awaitReady(START_TIMEOUT);
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
    if (redis != null) {
      redis.close();
    }
    if (kafka != null) {
      kafka.close();
    }
    if (database != null) {
      database.close();
    }
  }

  @Test
  void consumersReadEveryStoredEventOnceInOrderThroughAKillOfTheQuerySide() throws Exception {
    ApiClient commands = new ApiClient(command.port());
    List<String> skus = new ArrayList<>();
    for (int i = 0; i < SKUS; i++) {
      String sku = "feed-" + RUN + "-" + i;
      assertThat(
              commands
                  .send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 1000000}")
                  .getStatusCode()
                  .value())
          .as("registration of %s", sku)
          .isEqualTo(201);
      skus.add(sku);
    }

    List<FeedConsumer> consumers =
        List.of(new PagingConsumer(query::port), new StreamConsumer(query::port));
    consumers.forEach(FeedConsumer::start);
    Load load = new Load(commands, skus);
    load.start();
    LateEvent[] held = {null};
    try {
      awaitReceived(consumers, RECEIVED_BEFORE_KILL);
      LateEvent late = LateEvent.insert();
      held[0] = late;
      await("events stored above the late event's position %d".formatted(late.position))
          .atMost(SETTLE_TIMEOUT)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> lastStored() > late.position);

      List<Integer> receivedAtKill = consumers.stream().map(FeedConsumer::received).toList();
      int publishedAtKill = PublishedEvents.read(kafka.bootstrapServers()).size();
      List<Long> failuresAtKill = consumers.stream().map(FeedConsumer::failures).toList();
      query.kill();
      log.info(
          "Killed the query side with {} events received by {}, {} stored",
          receivedAtKill,
          consumers,
          storedCount());
      assertThat(query.exitValue()).as("the query side's exit, after SIGKILL").isEqualTo(128 + 9);

      query.relaunch();
      query.awaitReady(START_TIMEOUT);
      // The restarted query side answers the consumers, and hands on nothing beyond the late
      // event's hole while its transaction may still commit there.
      List<Long> answersAtRestart = consumers.stream().map(FeedConsumer::answers).toList();
      for (int i = 0; i < consumers.size(); i++) {
        FeedConsumer consumer = consumers.get(i);
        long before = answersAtRestart.get(i);
        await("%s answered by the restarted query side".formatted(consumer))
            .atMost(SETTLE_TIMEOUT)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> consumer.answers() > before);
      }
      assertThat(lastStored()).as("the last stored event").isGreaterThan(late.position);
      for (FeedConsumer consumer : consumers) {
        assertThat(consumer.lastPosition())
            .as("%s's position while the late event's transaction is open", consumer)
            .isLessThan(late.position);
      }
      late.commit();
      List<Integer> receivedAtRestart = consumers.stream().map(FeedConsumer::received).toList();
      for (int i = 0; i < consumers.size(); i++) {
        int after = receivedAtRestart.get(i) + RECEIVED_AFTER_RESTART;
        FeedConsumer consumer = consumers.get(i);
        await("%s receiving from the restarted query side".formatted(consumer))
            .atMost(SETTLE_TIMEOUT)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> consumer.received() >= after);
      }
      load.stop();
      log.info("The load: {}", load.outcomes());

      long last = lastStored();
      for (FeedConsumer consumer : consumers) {
        await("%s reaching the last stored event %d".formatted(consumer, last))
            .atMost(SETTLE_TIMEOUT)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> consumer.lastPosition() >= last);
      }
      List<String> stored = storedEvents();
      assertThat(stored.get(stored.size() - 1))
          .as("the last stored event, nothing stored after the load")
          .startsWith(last + " ");
      assertThat(stored)
          .as("the event committed after the restart")
          .contains(late.position + " " + LateEvent.TYPE);
      assertThat(last)
          .as("the last position, beyond the events: holes")
          .isGreaterThan(stored.size());
      log.info(
          "{} events stored; received by {}: {}; failed answers and broken streams: {}",
          stored.size(),
          consumers,
          consumers.stream().map(FeedConsumer::received).toList(),
          consumers.stream().map(FeedConsumer::failures).toList());

      for (int i = 0; i < consumers.size(); i++) {
        FeedConsumer consumer = consumers.get(i);
        assertThat(consumer.violations()).as("what %s was answered amiss", consumer).isEmpty();
        assertThat(consumer.failures())
            .as("failed answers and broken streams %s met through the outage", consumer)
            .isGreaterThan(failuresAtKill.get(i));
        assertThat(receivedAtKill.get(i))
            .as("events %s had received when the query side was killed", consumer)
            .isPositive()
            .isLessThan(stored.size());
        List<String> received = consumer.events();
        // Missing and doubled events first, for a short message; then the order.
        Set<String> seen = new HashSet<>(received);
        assertThat(stored.stream().filter(event -> !seen.contains(event)).toList())
            .as("stored events %s never received", consumer)
            .isEmpty();
        assertThat(
                received.stream()
                    .collect(Collectors.groupingBy(event -> event, Collectors.counting()))
                    .entrySet()
                    .stream()
                    .filter(event -> event.getValue() > 1)
                    .map(Map.Entry::getKey)
                    .sorted()
                    .toList())
            .as("events %s received more than once", consumer)
            .isEmpty();
        assertThat(received)
            .as("the events %s received, against the event store's", consumer)
            .containsExactlyElementsOf(stored);
      }

      // The Kafka publisher, killed in the middle of its work too: every event in the topic once.
      assertThat(publishedAtKill).as("events published before the kill").isPositive();
      List<String> published =
          await("every stored event published to Kafka")
              .atMost(SETTLE_TIMEOUT)
              .pollInterval(Duration.ofMillis(500))
              .until(
                  () -> PublishedEvents.read(kafka.bootstrapServers()),
                  events -> events.size() >= stored.size());
      assertThat(published.stream().sorted(PublishedEvents.BY_POSITION).toList())
          .as("the events in the topic, against the event store's")
          .containsExactlyElementsOf(stored);
    } finally {
      load.stop();
      consumers.forEach(FeedConsumer::stop);
      if (held[0] != null) {
        held[0].close();
      }
    }
  }

  private static void awaitReceived(List<FeedConsumer> consumers, int events) {
    for (FeedConsumer consumer : consumers) {
      await("%s receiving %d events".formatted(consumer, events))
          .atMost(SETTLE_TIMEOUT)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> consumer.received() >= events);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The event store

  private static long storedCount() {
    return jdbc.queryForObject("select count(*) from domain_event_entry", Long.class);
  }

  private static long lastStored() {
    return jdbc.queryForObject("select max(global_index) from domain_event_entry", Long.class);
  }

  /**
   * An event row inserted in a transaction of the test's own: its global index is taken at once and
   * a hole for the readers until the transaction commits it ({@link #commit}) or rolls back ({@link
   * #close}, a hole for good). Of an aggregate and a type of the test's own, which no handler of
   * either service knows, so that they pass it by.
   */
  private static final class LateEvent implements AutoCloseable {

    static final String TYPE = "FeedProbe";

    private static final AtomicInteger inserted = new AtomicInteger();

    final long position;
    private final Connection connection;

    private LateEvent(Connection connection, long position) {
      this.connection = connection;
      this.position = position;
    }

    static LateEvent insert() throws SQLException {
      Connection connection = jdbc.getDataSource().getConnection();
      try {
        connection.setAutoCommit(false);
        String id = "probe-" + RUN + "-" + inserted.incrementAndGet();
        try (PreparedStatement insert =
            connection.prepareStatement(
                "insert into domain_event_entry (aggregate_identifier, sequence_number, type,"
                    + " event_identifier, meta_data, payload, payload_type, time_stamp)"
                    + " values (?, 0, 'Probe', ?, ?, ?, ?, ?)",
                Statement.RETURN_GENERATED_KEYS)) {
          insert.setString(1, "probe:" + id);
          insert.setString(2, id);
          insert.setBytes(3, "{}".getBytes(StandardCharsets.UTF_8));
          insert.setBytes(4, "{}".getBytes(StandardCharsets.UTF_8));
          insert.setString(5, "io.stockade.system." + TYPE);
          insert.setString(6, Instant.now().toString());
          insert.executeUpdate();
          try (ResultSet keys = insert.getGeneratedKeys()) {
            keys.next();
            return new LateEvent(connection, keys.getLong(1));
          }
        }
      } catch (SQLException | RuntimeException e) {
        connection.close();
        throw e;
      }
    }

    /** A hole for good: an insert rolled back, as a lost append's. */
    static void hole() {
      try (LateEvent rolledBack = insert()) {
        // Closing rolls it back.
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    void commit() throws SQLException {
      connection.commit();
      connection.close();
    }

    @Override
    public void close() throws SQLException {
      if (!connection.isClosed()) {
        connection.rollback();
        connection.close();
      }
    }
  }

  /** Every stored event as {@code "<global index> <event class's simple name>"}, in index order. */
  private static List<String> storedEvents() {
    return jdbc.query(
        "select global_index, payload_type from domain_event_entry order by global_index",
        (row, n) -> {
          String type = row.getString(2);
          return row.getLong(1) + " " + type.substring(type.lastIndexOf('.') + 1);
        });
  }

  // ---------------------------------------------------------------------------------------------
  // The load

  /**
   * Threads that each reserve one or two SKUs and end the reservation: confirmed, released, or
   * extended and then confirmed, so that no hold is left to expire after the load; and now and then
   * an insert rolled back, a hole in the global index.
   */
  private static final class Load {

    private final ApiClient commands;
    private final List<String> skus;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger sent = new AtomicInteger();
    private final Map<String, Integer> outcomes = new ConcurrentHashMap<>();
    private final ExecutorService threads = Executors.newFixedThreadPool(LOAD_THREADS);
    private final List<Future<?>> workers = new ArrayList<>();

    Load(ApiClient commands, List<String> skus) {
      this.commands = commands;
      this.skus = skus;
    }

    void start() {
      for (int t = 0; t < LOAD_THREADS; t++) {
        workers.add(
            threads.submit(
                () -> {
                  while (running.get()) {
                    reserveAndEnd(sent.incrementAndGet());
                  }
                }));
      }
    }

    private void reserveAndEnd(int n) {
      if (n % RESERVATIONS_PER_HOLE == 0) {
        LateEvent.hole();
      }
      String id = "R-" + RUN + "-" + n;
      String first = skus.get(n % skus.size());
      String second = skus.get((n + 1) % skus.size());
      String lines = n % 2 == 0 ? line(first, 1) : line(first, 1) + ", " + line(second, 2);
      String reserved =
          answer(
              HttpMethod.POST,
              "/api/reservations",
              "{\"reservationId\": \""
                  + id
                  + "\", \"userId\": \"u-"
                  + n
                  + "\", \"lines\": ["
                  + lines
                  + "]}");
      if (!reserved.equals("201")) {
        return;
      }
      String path = "/api/reservations/" + id;
      switch (n % 3) {
        case 0 -> answer(HttpMethod.POST, path + "/confirm", null);
        case 1 -> answer(HttpMethod.POST, path + "/release", null);
        default -> {
          answer(HttpMethod.POST, path + "/extend", "{\"holdSeconds\": 1200}");
          answer(HttpMethod.POST, path + "/confirm", null);
        }
      }
    }

    private static String line(String sku, int quantity) {
      return "{\"skuId\": \"" + sku + "\", \"quantity\": " + quantity + "}";
    }

    /** The answer's status, counted. */
    private String answer(HttpMethod method, String path, String body) {
      String status = String.valueOf(commands.send(method, path, body).getStatusCode().value());
      outcomes.merge(status, 1, Integer::sum);
      return status;
    }

    /** Stops the threads after their current reservation; a thread's failure fails the test. */
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

    Map<String, Integer> outcomes() {
      return new TreeMap<>(outcomes);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The consumers

  /**
   * A downstream consumer on a thread of its own: the events it received in order, each as {@code
   * "<position> <type>"}, the last position it holds, and how many answers failed or streams broke.
   * It asks the query side wherever it listens now ({@code port}).
   */
  private abstract static class FeedConsumer {

    static final HttpClient HTTP =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    private final String name;
    private final IntSupplier port;
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicInteger answers = new AtomicInteger();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;
    private volatile long position;

    FeedConsumer(String name, IntSupplier port) {
      this.name = name;
      this.port = port;
      this.thread = new Thread(this::run, name);
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    void stop() {
      running.set(false);
      thread.interrupt();
    }

    boolean running() {
      return running.get();
    }

    int received() {
      return events.size();
    }

    List<String> events() {
      return List.copyOf(events);
    }

    long lastPosition() {
      return position;
    }

    long failures() {
      return failures.get();
    }

    URI uri(String pathAndQuery) {
      return URI.create("http://127.0.0.1:" + port.getAsInt() + pathAndQuery);
    }

    /** One event of the feed, in the form of GET /api/events's elements. */
    void receive(JsonNode event) {
      long at = event.get("position").asLong();
      events.add(at + " " + event.get("type").asString());
      position = at;
    }

    /** What the feed answered that it should not have (a page or an event out of shape). */
    List<String> violations() {
      return List.copyOf(violations);
    }

    private void run() {
      while (running.get()) {
        try {
          follow();
        } catch (IOException failed) {
          // Down, restarting, or the stream cut: ask again from the position held.
          failures.incrementAndGet();
        } catch (RuntimeException wrong) {
          violations.add(wrong.toString());
          return;
        } catch (InterruptedException stopped) {
          return;
        }
        pause();
      }
    }

    /** Reads the feed after {@link #lastPosition} until it has nothing more or fails. */
    abstract void follow() throws IOException, InterruptedException;

    void failed() {
      failures.incrementAndGet();
    }

    /** An answer of 200: a page, or a stream opened. */
    void answered() {
      answers.incrementAndGet();
    }

    /** How many answers of 200 it has had. */
    long answers() {
      return answers.get();
    }

    private void pause() {
      try {
        Thread.sleep(RETRY_PAUSE.toMillis());
      } catch (InterruptedException stopped) {
        Thread.currentThread().interrupt();
        running.set(false);
      }
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** The loop of docs/api.md: {@code GET /api/events?after=<next>&limit=1000}, again and again. */
  private static final class PagingConsumer extends FeedConsumer {

    PagingConsumer(IntSupplier port) {
      super("paging consumer", port);
    }

    @Override
    void follow() throws IOException, InterruptedException {
      while (running()) {
        HttpResponse<String> answer =
            HTTP.send(
                HttpRequest.newBuilder(uri("/api/events?limit=1000&after=" + lastPosition()))
                    .header("Authorization", "Bearer " + READER)
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
          failed();
          return;
        }
        answered();
        JsonNode page = StrictJson.read(answer.body());
        long after = lastPosition();
        for (JsonNode event : page.get("events")) {
          receive(event);
        }
        if (page.get("next").asLong() != lastPosition()) {
          throw new IllegalStateException(
              "next " + page.get("next") + " after " + after + " is not the last event's position");
        }
        if (page.get("events").isEmpty()) {
          return;
        }
      }
    }
  }

  /**
   * The stream of docs/api.md: {@code GET /api/events/stream}, and after it breaks the same with
   * {@code Last-Event-ID}, the position of the last event received.
   */
  private static final class StreamConsumer extends FeedConsumer {

    StreamConsumer(IntSupplier port) {
      super("stream consumer", port);
    }

    @Override
    void follow() throws IOException, InterruptedException {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(uri("/api/events/stream"))
              .header("Authorization", "Bearer " + READER)
              .header("Accept", "text/event-stream");
      if (lastPosition() > 0) {
        request.header("Last-Event-ID", Long.toString(lastPosition()));
      }
      HttpResponse<Stream<String>> answer =
          HTTP.send(request.build(), HttpResponse.BodyHandlers.ofLines());
      try (Stream<String> lines = answer.body()) {
        if (answer.statusCode() != 200) {
          failed();
          return;
        }
        answered();
        String id = null;
        String data = null;
        for (Iterator<String> it = lines.iterator(); it.hasNext() && running(); ) {
          String line = it.next();
          if (line.isEmpty()) {
            if (data != null) {
              JsonNode event = StrictJson.read(data);
              if (!Long.toString(event.get("position").asLong()).equals(id)) {
                throw new IllegalStateException("event " + data + " sent with the id " + id);
              }
              receive(event);
            }
            id = null;
            data = null;
          } else if (line.startsWith("id:")) {
            id = line.substring("id:".length());
          } else if (line.startsWith("data:")) {
            data = line.substring("data:".length());
          }
        }
      } catch (UncheckedIOException cut) {
        throw cut.getCause();
      }
      // The stream ended: the query side went away (or the stream's time was up).
      failed();
    }
  }
}
