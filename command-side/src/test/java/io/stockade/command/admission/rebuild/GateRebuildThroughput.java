package io.stockade.command.admission.rebuild;

import io.stockade.command.CommandSideApplication;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateSession;
import io.stockade.platform.testing.BenchRun;
import io.stockade.platform.testing.GeneratedEventStore;
import io.stockade.platform.testing.TestTokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.axonframework.config.EventProcessingConfiguration;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Benchmark driver for {@code bench/gate-rebuild}: the rate of the admission gate's rebuild from
 * the event store, next to a raw scan of the event table, in one run on a database of its own.
 *
 * <ol>
 *   <li>creates the database afresh and starts the command side on it (Flyway creates the tables;
 *       the gate opens on the empty store), then stops its gate follower, which would otherwise
 *       stream the generated store through Axon while the rebuild runs;
 *   <li>writes {@code events} events straight into the event table ({@link GeneratedEventStore}, as
 *       {@code bench/replay} does);
 *   <li>scans the event table with one plain SELECT of every column, {@code scans} times (median);
 *   <li>rebuilds the gate twice through the service itself: each time the partitions' markers are
 *       deleted, as if Redis had come back from an older copy of its data, the gate keeper is asked
 *       to check its session, finds the gate gone, claims the next epoch in the database and runs
 *       {@link GateRebuild}; timed until the gate keeper holds the open session. The first rebuild
 *       clears what the gate held on the empty store, the second every key the first wrote. Then it
 *       waits until the decision log's restore of the admitted decisions Redis lost (done once the
 *       gate is open) is no longer owed, and prints how long after the opening that was.
 * </ol>
 *
 * Each rebuild's phases (CLEARING, READING, WRITING, as {@link GateRebuild#progress()} tells them)
 * are timed by polling every few milliseconds; "claim" is the time before CLEARING, "opening" the
 * time after the last phase. The rebuilt gate's counters are checked against the store: the units
 * reserved and sold over all SKUs must be those the record holds.
 *
 * <p>Prints {@code RESULT scan <rows/s>} and {@code RESULT rebuild-<n> <events/s>}. Options as
 * key=value: host (127.0.0.1), port (3306), user (root), password (empty), redisHost (127.0.0.1),
 * redisPort (6391: the rebuild deletes every gate key of that Redis), database
 * (stockade_bench_rebuild), events (1000000), skus (100), scans (3), keep (false: drop the database
 * at the end).
 */
public final class GateRebuildThroughput {

  private static final int REBUILDS = 2;

  private GateRebuildThroughput() {}

  public static void main(String[] args) throws Exception {
    BenchRun run = BenchRun.of(args, "stockade_bench_rebuild");
    String user = run.user();
    String password = run.password();
    String redisHost = run.option("redisHost", "127.0.0.1");
    String redisPort = run.option("redisPort", "6391");
    int events = run.number("events", 1_000_000);
    int skus = run.number("skus", 100);
    int scans = run.number("scans", 3);
    String url = run.url();
    Map<String, String> pids = new LinkedHashMap<>();
    pids.put("self", "self");
    if (!run.option("dbPid", "").isEmpty()) {
      pids.put("database", run.option("dbPid", ""));
    }
    if (!run.option("redisPid", "").isEmpty()) {
      pids.put("redis", run.option("redisPid", ""));
    }
    run.createDatabase();
    ConfigurableApplicationContext app =
        new SpringApplicationBuilder(CommandSideApplication.class)
            .run(
                "--server.port=0",
                "--spring.datasource.url=" + url,
                "--spring.datasource.username=" + user,
                "--spring.datasource.password=" + password,
                "--spring.data.redis.host=" + redisHost,
                "--spring.data.redis.port=" + redisPort,
                "--logging.level.root=WARN",
                // No request is made, but a service does not start without a token key.
                "--spring.security.oauth2.resourceserver.jwt.public-key-location="
                    + TestTokens.PUBLIC_KEY_LOCATION,
                // Its requests would run while the store is written.
                "--stockade.warm-up.enabled=false",
                // The rebuild of the whole record is measured: no checkpoint is taken.
                "--stockade.gate.checkpoint.enabled=false");
    try {
      app.getBean(EventProcessingConfiguration.class)
          .eventProcessor("gate-follower", StreamingEventProcessor.class)
          .orElseThrow()
          .shutDown();
      long started = System.nanoTime();
      try (Connection connection = run.connect()) {
        GeneratedEventStore.write(connection, events, skus);
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

      Map<String, Long> types = countByType(url, user, password);
      long stored = types.values().stream().mapToLong(Long::longValue).sum();
      long sold = types.getOrDefault("io.stockade.api.reservation.StockConfirmed", 0L);
      long reserved =
          types.getOrDefault("io.stockade.api.reservation.StockReserved", 0L)
              - sold
              - types.getOrDefault("io.stockade.api.reservation.StockReleased", 0L);
      System.out.printf("RESULT scan %.0f%n", scan);
      for (int round = 1; round <= REBUILDS; round++) {
        int n = round;
        long[] redisBefore = scriptTime(app);
        Map<String, Double> phases = rebuild(app, pids);
        long opened = System.nanoTime();
        long[] redisAfter = scriptTime(app);
        double restore = restoredAfterOpening(app, opened);
        double seconds = phases.values().stream().mapToDouble(Double::doubleValue).sum();
        check(app, skus, reserved, sold);
        StringBuilder line = new StringBuilder();
        phases.forEach((phase, s) -> line.append(String.format(" %s %.2f s", phase, s)));
        System.out.printf(
            "rebuild %d: %d events in %.1f s:%s%n", n, stored, seconds, line.toString());
        System.out.printf(
            "rebuild %d: Redis ran %d script calls in %.2f s%n",
            n, redisAfter[0] - redisBefore[0], (redisAfter[1] - redisBefore[1]) / 1e6);
        System.out.printf("RESULT rebuild-%d %.0f%n", n, stored / seconds);
        System.out.printf(
            "PHASE rebuild-%d redis-scripts %.2f%n", n, (redisAfter[1] - redisBefore[1]) / 1e6);
        phases.forEach((phase, s) -> System.out.printf("PHASE rebuild-%d %s %.2f%n", n, phase, s));
        System.out.printf(
            "rebuild %d: the decision log's restore done %.2f s after the gate opened%n",
            n, restore);
        System.out.printf("AFTER rebuild-%d restore %.2f%n", n, restore);
      }
    } finally {
      app.close();
      run.dropDatabase();
    }
    System.exit(0);
  }

  /**
   * Drops the gate's markers, has the gate keeper find the gate gone, and waits until it has
   * rebuilt and opened it again: seconds spent in each phase, in order (claim, CLEARING, READING,
   * WRITING, opening).
   */
  static Map<String, Double> rebuild(ConfigurableApplicationContext app, Map<String, String> pids)
      throws InterruptedException {
    GateKeeper keeper = app.getBean(GateKeeper.class);
    GateRebuild rebuild = app.getBean(GateRebuild.class);
    GateLayout layout = app.getBean(GateLayout.class);
    GateSession before = keeper.current();
    if (before == null) {
      throw new IllegalStateException("The gate is not open before the rebuild");
    }
    StringRedisTemplate redis = before.redis();
    for (GateLayout.Partition partition : layout.partitions()) {
      redis.delete(partition.marker());
    }
    Map<String, Long> seen = new LinkedHashMap<>();
    Map<String, Map<String, Long>> cpu = new LinkedHashMap<>();
    long started = System.nanoTime();
    seen.put("claim", started);
    cpu.put("claim", cpuTicks(pids));
    if (keeper.checkedEpoch().isPresent()) {
      throw new IllegalStateException("The gate keeper did not notice the markers gone");
    }
    long deadline = started + 600_000_000_000L;
    GateSession after;
    while ((after = keeper.current()) == null || after == before) {
      rebuild
          .progress()
          .ifPresent(
              now -> {
                if (!seen.containsKey(now.phase())) {
                  seen.put(now.phase(), System.nanoTime());
                  cpu.put(now.phase(), cpuTicks(pids));
                }
              });
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "The gate is not open after 10 minutes: " + keeper.closedBecause());
      }
      Thread.sleep(2);
    }
    long opened = System.nanoTime();
    if (after.epoch() <= before.epoch()) {
      throw new IllegalStateException("The gate opened in epoch " + after.epoch() + " again");
    }
    seen.put("opening", opened);
    cpu.put("opening", cpuTicks(pids));
    Map<String, Double> phases = new LinkedHashMap<>();
    List<Map.Entry<String, Long>> points = new ArrayList<>(seen.entrySet());
    List<Map<String, Long>> ticks = new ArrayList<>(cpu.values());
    for (int i = 0; i < points.size() - 1; i++) {
      String phase = points.get(i).getKey();
      phases.put(phase, (points.get(i + 1).getValue() - points.get(i).getValue()) / 1e9);
      StringBuilder used = new StringBuilder();
      Map<String, Long> from = ticks.get(i);
      ticks
          .get(i + 1)
          .forEach(
              (name, to) -> {
                long spent = to - from.getOrDefault(name, 0L);
                if (spent > 0) {
                  used.append(String.format(" %s %.2f", name, spent / (double) CLOCK_TICKS));
                }
              });
      System.out.printf("CPU rebuild %s (s):%s%n", phase, used);
    }
    return phases;
  }

  /**
   * Waits until the rebuild owes the decision log no restore (it restores the admitted decisions
   * Redis lost once the gate is open): seconds from {@code opened}.
   */
  private static double restoredAfterOpening(ConfigurableApplicationContext app, long opened)
      throws InterruptedException {
    JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
    long deadline = opened + 600_000_000_000L;
    while (jdbc.queryForObject("select count(*) from gate_decision_restore", Long.class) > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("The decision log's restore not done after 10 minutes");
      }
      Thread.sleep(10);
    }
    return (System.nanoTime() - opened) / 1e9;
  }

  /** The kernel's clock ticks per second, in which /proc gives CPU time (USER_HZ, 100 on Linux). */
  private static final int CLOCK_TICKS = 100;

  /**
   * CPU time so far, in clock ticks (user and system; "<name> sys" the system part alone), of this
   * JVM's threads by name (digits dropped: "GC Thread#1" counts as "GC Thread#"), and of the
   * processes {@code pids} names (the database, Redis), from /proc; empty where /proc cannot be
   * read.
   */
  private static Map<String, Long> cpuTicks(Map<String, String> pids) {
    Map<String, Long> ticks = new TreeMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      tasks.forEach(
          task -> {
            String stat = read(task.resolve("stat"));
            if (stat != null) {
              String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
              String thread = name.replaceAll("[0-9]+", "");
              ticks.merge(thread, ticksOf(stat), Long::sum);
              ticks.merge(thread + " sys", systemTicksOf(stat), Long::sum);
            }
          });
    } catch (IOException e) {
      return ticks;
    }
    pids.forEach(
        (name, pid) -> {
          String stat = read(Path.of("/proc", pid, "stat"));
          if (stat != null && !name.equals("self")) {
            ticks.put("[" + name + "]", ticksOf(stat));
            ticks.put("[" + name + "] sys", systemTicksOf(stat));
          }
        });
    return ticks;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return null; // A thread that ended.
    }
  }

  /** utime + stime, the 14th and 15th fields of a stat line. */
  private static long ticksOf(String stat) {
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  /**
   * stime alone: the kernel's part (page faults, system calls), also counted in {@link #ticksOf}.
   */
  private static long systemTicksOf(String stat) {
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[12]);
  }

  /** The units reserved and sold over every SKU's counters are those of the record. */
  static void check(ConfigurableApplicationContext app, int skus, long reserved, long sold) {
    GateLayout layout = app.getBean(GateLayout.class);
    StringRedisTemplate redis = app.getBean(GateKeeper.class).current().redis();
    long gateReserved = 0;
    long gateSold = 0;
    for (int s = 0; s < skus; s++) {
      Map<Object, Object> counters = redis.opsForHash().entries(layout.counters("bench-sku-" + s));
      gateReserved += Long.parseLong((String) counters.get("reserved"));
      gateSold += Long.parseLong((String) counters.get("sold"));
    }
    if (gateReserved != reserved || gateSold != sold) {
      throw new IllegalStateException(
          "The gate holds "
              + gateReserved
              + " reserved and "
              + gateSold
              + " sold, the record "
              + reserved
              + " and "
              + sold);
    }
  }

  /**
   * Script calls (EVAL and EVALSHA) the Redis server has run, and the microseconds it spent in
   * them, from its command statistics.
   */
  private static long[] scriptTime(ConfigurableApplicationContext app) {
    Properties stats =
        app.getBean(GateKeeper.class)
            .current()
            .redis()
            .execute(
                (RedisCallback<Properties>)
                    connection -> connection.serverCommands().info("commandstats"));
    long[] total = new long[2];
    for (String command : List.of("cmdstat_eval", "cmdstat_evalsha")) {
      String line = stats.getProperty(command);
      if (line != null) {
        for (String part : line.split(",")) {
          String[] pair = part.split("=");
          if (pair[0].equals("calls")) {
            total[0] += Long.parseLong(pair[1]);
          } else if (pair[0].equals("usec")) {
            total[1] += Long.parseLong(pair[1]);
          }
        }
      }
    }
    return total;
  }

  /** Events in the event table by payload type. */
  static Map<String, Long> countByType(String url, String user, String password)
      throws SQLException {
    Map<String, Long> counts = new HashMap<>();
    try (Connection connection = DriverManager.getConnection(url, user, password);
        Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "select payload_type, count(*) from domain_event_entry group by payload_type")) {
      while (result.next()) {
        counts.put(result.getString(1), result.getLong(2));
      }
    }
    return counts;
  }
}
