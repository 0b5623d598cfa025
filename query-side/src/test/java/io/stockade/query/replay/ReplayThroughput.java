package io.stockade.query.replay;

import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.BenchRun;
import io.stockade.platform.testing.GeneratedEventStore;
import io.stockade.platform.testing.TestTokens;
import io.stockade.query.QuerySideApplication;
import io.stockade.query.reconciliation.FoldThroughput;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.axonframework.config.EventProcessingConfiguration;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.springframework.beans.factory.config.YamlPropertiesFactoryBean;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.ClassPathResource;

/**
 * Benchmark driver for {@code bench/replay}: the replay rate of the query side's read models, next
 * to a raw scan of the event table, in one run on a database of its own.
 *
 * <ol>
 *   <li>creates the database afresh and starts the query side on it (Flyway creates the tables),
 *       then stops its projections;
 *   <li>writes {@code events} events straight into the event table ({@link GeneratedEventStore}:
 *       registrations of {@code skus} SKUs, then reservations, a third confirmed and a third
 *       released), as Axon stores them;
 *   <li>scans the event table with one plain SELECT of every column, {@code scans} times: the
 *       ceiling any reader of that table has on this machine (median reported);
 *   <li>replays a processor whose handlers do nothing ({@link NoOpProjection}, configured like the
 *       projections) until it reaches the head: what Axon's streaming processor costs by itself,
 *       reading, deserializing and dispatching every event, with nothing written;
 *   <li>replays every read model through {@code Replays} and times it until DONE.
 * </ol>
 *
 * Prints {@code RESULT scan <rows/s>}, {@code RESULT noop <events/s>}, {@code RESULT replay
 * <events/s>} and {@code RESULT model-bytes <bytes>} (the read models' tables after it, what a
 * replay's copies take again). Options as key=value: host (127.0.0.1), port (3306), user (root),
 * password (empty), redisHost (127.0.0.1), redisPort (6379), database (stockade_bench_replay),
 * events (1000000), skus (100), scans (3), replays (true; false: the folds only), again (false;
 * true: a second replay of every read model, beside the models the first built, printed as {@code
 * RESULT replay-again}, with a reader asking for a SKU's stock and a reservation the whole time:
 * {@code RESULT reads-during-replay <reads> <answers other than 200>}), randomIds (false; true:
 * reservations identified by random UUIDs instead of {@code bench-R-<n>}), later (0: each
 * confirmation or release right after its reservation; n: n reservations later), keep (false: drop
 * the database at the end).
 */
public final class ReplayThroughput {

  private ReplayThroughput() {}

  public static void main(String[] args) throws Exception {
    BenchRun run = BenchRun.of(args, "stockade_bench_replay");
    String user = run.user();
    String password = run.password();
    int events = run.number("events", 1_000_000);
    int skus = run.number("skus", 100);
    int scans = run.number("scans", 3);
    boolean withReplays = run.flag("replays", true);
    boolean again = run.flag("again", false);
    boolean randomIds = run.flag("randomIds", false);
    int later = run.number("later", 0);
    run.createDatabase();
    String redisHost = run.option("redisHost", "127.0.0.1");
    String redisPort = run.option("redisPort", "6379");
    String url = run.url();
    Properties projection = projectionSettings();
    ConfigurableApplicationContext app =
        new SpringApplicationBuilder(QuerySideApplication.class, NoOpProjection.class)
            .run(
                "--axon.eventhandling.processors." + NoOpProjection.NAME + ".mode=pooled",
                "--axon.eventhandling.processors."
                    + NoOpProjection.NAME
                    + ".initial-segment-count="
                    + projection.getProperty("initial-segment-count"),
                "--axon.eventhandling.processors."
                    + NoOpProjection.NAME
                    + ".batch-size="
                    + projection.getProperty("batch-size"),
                "--server.port=0",
                "--spring.datasource.url=" + url,
                "--spring.datasource.username=" + user,
                "--spring.datasource.password=" + password,
                // The reconciliation's Redis: named, so that no local server is started for it.
                "--spring.data.redis.host=" + redisHost,
                "--spring.data.redis.port=" + redisPort,
                "--logging.level.root=WARN",
                // The replay's own lines: when it starts, each tenth of the fold, its end.
                "--logging.level.io.stockade.query.replay=INFO",
                // No request is made, but a service does not start without a token key.
                "--spring.security.oauth2.resourceserver.jwt.public-key-location="
                    + TestTokens.PUBLIC_KEY_LOCATION,
                // Its first run folds the whole event store: not part of what is measured.
                "--stockade.reconciliation.interval=0s",
                // The service's own warm-up (liveness probes, two at a time, until the JIT has
                // settled) would run beside the measurements: it took about a core through the
                // scans and the replay, and so slowed both.
                "--stockade.warm-up.enabled=false");
    try {
      EventProcessingConfiguration processing = app.getBean(EventProcessingConfiguration.class);
      for (String name :
          List.of("stock-projection", "reservation-projection", NoOpProjection.NAME)) {
        processing.eventProcessor(name, StreamingEventProcessor.class).orElseThrow().shutDown();
      }
      long started = System.nanoTime();
      try (Connection connection = run.connect()) {
        GeneratedEventStore.write(connection, events, skus, randomIds, later);
      }
      System.out.printf("wrote %d events in %.1f s%n", events, (System.nanoTime() - started) / 1e9);

      List<Double> scanRates = new ArrayList<>();
      for (int i = 0; i < scans; i++) {
        try (Connection connection = run.connect()) {
          double rate = GeneratedEventStore.scan(connection);
          scanRates.add(rate);
          System.out.printf("scan %d: %.0f rows/s%n", i + 1, rate);
        }
      }
      scanRates.sort(Double::compare);
      double scan = scanRates.get(scanRates.size() / 2);

      long stored = count(url, user, password);
      double[] folds = FoldThroughput.measure(app, stored);
      System.out.printf(
          "reconciliation's first fold: %.0f events/s (through readEvents: %.0f)%n",
          folds[0], folds[1]);
      System.out.printf("RESULT scan %.0f%n", scan);
      System.out.printf("RESULT reconciliation-fold %.0f%n", folds[0]);
      System.out.printf("RESULT reconciliation-fold-axon %.0f%n", folds[1]);
      if (withReplays) {
        double noop = stored / noOpReplay(processing, url, user, password);
        System.out.printf("no-op replay: %.0f events/s%n", noop);

        Replays replays = app.getBean(Replays.class);
        double seconds = replay(replays);
        System.out.printf("replay: %d events in %.1f s%n", stored, seconds);
        System.out.printf("RESULT noop %.0f%n", noop);
        System.out.printf("RESULT replay %.0f%n", stored / seconds);
        // What the database alone takes to write the rows the replay wrote: each read model's
        // table copied into an empty one of the same definition by INSERT ... SELECT, on one
        // connection in one transaction, as the replay writes. No client parses, folds or sends
        // anything: a floor under any replay on one connection of this server.
        double floor = copyModels(run);
        System.out.printf("database writing the models' rows alone: %.1f s%n", floor);
        System.out.printf("RESULT write-floor %.0f%n", stored / floor);
        long bytes = modelBytes(run);
        System.out.printf(
            "the models' tables: %.0f MB (%.0f MB per million events), as much again for a"
                + " replay's copies%n",
            bytes / 1e6, bytes / 1e6 / (stored / 1e6));
        System.out.printf("RESULT model-bytes %d%n", bytes);
        if (again) {
          // As an operator's replay runs: beside the models the first one built, which serve
          // reads meanwhile, a reader asking for a SKU and a reservation the whole time.
          int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
          List<String> paths =
              randomIds
                  ? List.of("/api/stock/bench-sku-0")
                  : List.of("/api/stock/bench-sku-0", "/api/reservations/bench-R-" + (events / 4));
          try (Reads reads = new Reads(new ApiClient(port), paths)) {
            double over = replay(replays);
            System.out.printf("replay over full models: %d events in %.1f s%n", stored, over);
            System.out.printf("RESULT replay-again %.0f%n", stored / over);
            System.out.printf(
                "reads during it: %d, answers other than 200: %s%n",
                reads.count(), reads.failures());
            System.out.printf(
                "RESULT reads-during-replay %d %d%n",
                reads.count(), reads.failures().values().stream().mapToInt(n -> n).sum());
          }
        }
      }
    } finally {
      app.close();
      run.dropDatabase();
    }
    System.exit(0);
  }

  /** Runs a replay of every read model to DONE; seconds. */
  private static double replay(Replays replays) throws InterruptedException {
    long started = System.nanoTime();
    Replays.Replay replay = replays.start().orElseThrow();
    Replays.Replay now = replay;
    while (!"DONE".equals(now.status()) && !"FAILED".equals(now.status())) {
      Thread.sleep(500);
      now = replays.find(replay.replayId()).orElseThrow();
      System.out.printf("replay: %d of %d (%d%%)%n", now.processed(), now.total(), now.percent());
    }
    if (!"DONE".equals(now.status())) {
      throw new IllegalStateException("Replay failed: " + now.failure());
    }
    return (System.nanoTime() - started) / 1e9;
  }

  /** The bytes of the read models' tables (data and indexes), their statistics refreshed first. */
  private static long modelBytes(BenchRun run) throws SQLException {
    try (Connection connection = run.connect();
        Statement statement = connection.createStatement()) {
      List<String> tables = List.of("stock_level", "stock_ledger", "reservation_view", "sku_queue");
      statement.execute("analyze table " + String.join(", ", tables));
      try (ResultSet result =
          statement.executeQuery(
              "select coalesce(sum(data_length + index_length), 0) from information_schema.tables"
                  + " where table_schema = database() and table_name in ('"
                  + String.join("', '", tables)
                  + "')")) {
        result.next();
        return result.getLong(1);
      }
    }
  }

  /** The read models' tables written by a replay. */
  private static final List<String> MODEL_TABLES =
      List.of("stock_level", "stock_ledger", "reservation_view");

  /**
   * Copies every read model's table into a new, empty one of the same definition, in one
   * transaction, then drops the copies; seconds taken by the copying.
   */
  private static double copyModels(BenchRun run) throws SQLException {
    try (Connection connection = run.connect();
        Statement statement = connection.createStatement()) {
      for (String table : MODEL_TABLES) {
        statement.execute("drop table if exists floor_" + table);
        statement.execute("create table floor_" + table + " like " + table);
      }
      connection.setAutoCommit(false);
      long started = System.nanoTime();
      for (String table : MODEL_TABLES) {
        statement.execute("insert into floor_" + table + " select * from " + table);
      }
      connection.commit();
      double seconds = (System.nanoTime() - started) / 1e9;
      connection.setAutoCommit(true);
      for (String table : MODEL_TABLES) {
        statement.execute("drop table floor_" + table);
      }
      return seconds;
    }
  }

  /** Events in the event table: counted, as the global index has gaps (batched inserts). */
  private static long count(String url, String user, String password) throws SQLException {
    return scalar(url, user, password, "select count(*) from domain_event_entry");
  }

  /** The one number a query answers. */
  private static long scalar(String url, String user, String password, String sql)
      throws SQLException {
    try (Connection connection = DriverManager.getConnection(url, user, password);
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      result.next();
      return result.getLong(1);
    }
  }

  /** The stock projection's processor settings in the query side's application.yml. */
  private static Properties projectionSettings() {
    YamlPropertiesFactoryBean yaml = new YamlPropertiesFactoryBean();
    yaml.setResources(new ClassPathResource("application.yml"));
    Properties all = yaml.getObject();
    Properties settings = new Properties();
    for (String key : List.of("initial-segment-count", "batch-size")) {
      String value = all.getProperty("axon.eventhandling.processors.stock-projection." + key);
      if (value == null) {
        throw new IllegalStateException("application.yml sets no " + key + " for stock-projection");
      }
      settings.setProperty(key, value);
    }
    return settings;
  }

  /**
   * Replays the no-op processor from the start until every segment has reached the head; seconds.
   * It is stopped again afterwards, so that it does not compete with the real replay.
   */
  private static double noOpReplay(
      EventProcessingConfiguration processing, String url, String user, String password)
      throws Exception {
    long head = scalar(url, user, password, "select max(global_index) from domain_event_entry");
    StreamingEventProcessor processor =
        processing.eventProcessor(NoOpProjection.NAME, StreamingEventProcessor.class).orElseThrow();
    int segments = Integer.parseInt(projectionSettings().getProperty("initial-segment-count"));
    processor.resetTokens();
    long started = System.nanoTime();
    processor.start();
    while (true) {
      Thread.sleep(100);
      var statuses = processor.processingStatus().values();
      if (statuses.size() == segments
          && statuses.stream().allMatch(status -> status.getCurrentPosition().orElse(-1) >= head)) {
        break;
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    processor.shutDown();
    return seconds;
  }

  /**
   * Handles every event and does nothing with it: registered as a source of the benchmark's
   * application only (not a component, so no test context picks it up).
   */
  @ProcessingGroup(NoOpProjection.NAME)
  static class NoOpProjection {

    static final String NAME = "bench-noop";

    @EventHandler
    void on(Object payload) {
      if (payload == null) {
        throw new IllegalStateException("An event without a payload");
      }
    }
  }
}
