package io.stockade.command.admission.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.localinfra.EmbeddedRedisCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Benchmark, not a test: admission decisions per second of one hot SKU through the real {@link
 * WholeGate}, on one Redis and on a Redis Cluster, in one run ({@code bench/cluster}).
 *
 * <p>Rows, each on servers of its own that this driver starts (never the shared 6379), the same
 * {@code redis-server} binary, no persistence:
 *
 * <ol>
 *   <li>{@code standalone}: one redis-server, the layout of a standalone Redis (1 partition), the
 *       SKU in 1 bucket; a standalone {@link StringRedisTemplate} (one shared connection).
 *   <li>{@code cluster-1-bucket}: an {@link EmbeddedRedisCluster} of {@code masters} masters, the
 *       layout of a cluster ({@code partitions} partitions), the SKU in 1 bucket: every call goes
 *       to the one master holding the SKU's partition; a cluster template (one shared connection
 *       per master).
 *   <li>{@code cluster-N-buckets}: the same cluster, the SKU split into {@code buckets} buckets
 *       (one per master): a call goes to its user's bucket.
 * </ol>
 *
 * <p>In every row {@code threads} threads call {@code gate.reserve} in a loop, one unit of the
 * row's SKU ({@code <row>-sku}) per call, a new reservation id per call, the users {@code u-0} to
 * {@code u-<users-1>} in turn (so spread over the buckets), no per-user limit and a stock of 10^15
 * units split over the buckets, so that no bucket runs short (no units are ever moved between
 * buckets). After a warm-up of {@code warmup} s, {@code rounds} rounds of {@code seconds} s are
 * measured; each prints its decisions/s, this JVM's CPU time per decision, each redis-server's CPU
 * time per decision ({@code INFO cpu}) and the script calls each served. Before the first row on
 * each topology the same calls run on a SKU of their own, not measured, for {@code warmup} s and at
 * least {@code warmcalls} calls (at most 120 s), so that the JIT has compiled the gate's and that
 * topology's client code before any of its rows is measured. Every call must be admitted and the
 * buckets' reserved units must equal the admissions, else the driver exits with status 1 (the
 * figures would not be what they claim). After each row (and warm-up) its keys are deleted ({@code
 * FLUSHALL} of its servers, which nothing else uses); the servers are stopped once their rows are
 * done.
 *
 * <p>Last, one line per row: {@code RESULT <row> <decisions/s> <CPU us per decision of this JVM>
 * <of every redis-server together> <of the busiest redis-server>}, each the median of the rounds.
 *
 * <p>Arguments {@code key=value}: dir (required: a new folder for the servers' files), threads
 * (64), warmup (5 s), rounds (3), seconds (10), users (1000), warmcalls (100000), masters (3),
 * partitions (16), buckets (= masters), redis (the redis-server binary, {@code redis-server}: that
 * of the PATH, which the cluster uses too), pids (a file to which the servers' process ids are
 * appended, so that the calling script can stop them should this JVM die without running its
 * shutdown hooks).
 */
final class ClusterThroughput {

  private static final Duration HOLD = Duration.ofMinutes(15);
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final long STOCK = 1_000_000_000_000_000L;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  /** The longest a topology's first warm-up goes on to reach {@code warmcalls} calls. */
  private static final Duration WARM_LIMIT = Duration.ofSeconds(120);

  private ClusterThroughput() {}

  public static void main(String[] args) throws Exception {
    quietLogging();
    Map<String, String> options = new HashMap<>();
    for (String arg : args) {
      String[] pair = arg.split("=", 2);
      options.put(pair[0], pair.length > 1 ? pair[1] : "true");
    }
    Path dir = Path.of(required(options, "dir"));
    int threads = Integer.parseInt(options.getOrDefault("threads", "64"));
    int warmup = Integer.parseInt(options.getOrDefault("warmup", "5"));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
    int seconds = Integer.parseInt(options.getOrDefault("seconds", "10"));
    int users = Integer.parseInt(options.getOrDefault("users", "1000"));
    long warmCalls = Long.parseLong(options.getOrDefault("warmcalls", "100000"));
    int masters = Integer.parseInt(options.getOrDefault("masters", "3"));
    int partitions = Integer.parseInt(options.getOrDefault("partitions", "16"));
    int buckets = Integer.parseInt(options.getOrDefault("buckets", String.valueOf(masters)));
    String binary = options.getOrDefault("redis", "redis-server");
    Path pids = options.containsKey("pids") ? Path.of(options.get("pids")) : null;
    Settings settings = new Settings(threads, warmup, rounds, seconds, users, warmCalls);

    System.out.printf(
        "threads %d | warm-up %d s | rounds %d x %d s | users %d | JDK %s %s | cores %d%n"
            + "one hot SKU per row, stock %d, no per-user limit, one unit per call, a new"
            + " reservation id per call%n",
        threads,
        warmup,
        rounds,
        seconds,
        users,
        System.getProperty("java.vm.name"),
        Runtime.version(),
        Runtime.getRuntime().availableProcessors(),
        STOCK);

    RedisClient admin = RedisClient.create();
    Map<String, Result> rows = new LinkedHashMap<>();
    try {
      // 1. One Redis.
      try (Standalone redis = Standalone.start(binary, dir.resolve("standalone"))) {
        record(pids, redis.process.pid());
        StringRedisTemplate template = TestRedis.template("127.0.0.1", redis.port, TIMEOUT);
        try {
          Topology one =
              new Topology(template, new GateLayout(1, null), List.of(redis.port), p -> redis.port);
          System.out.printf(
              "%none Redis: redis-server %s, pid %d, port %d, 1 partition%n",
              version(admin, redis.port), redis.process.pid(), redis.port);
          warm(settings, one, 1, admin);
          System.out.printf("%n== row 1: one Redis, 1 partition, 1 bucket%n");
          rows.put("standalone", row("standalone", settings, one, 1, admin));
        } finally {
          destroy(template);
        }
      }
      System.out.println("row 1: redis-server stopped");

      // 2 and 3. A Redis Cluster.
      EmbeddedRedisCluster cluster = EmbeddedRedisCluster.start(dir.resolve("cluster"), masters);
      try {
        for (int port : cluster.ports()) {
          record(pids, Long.parseLong(info(admin, port, "server").get("process_id")));
        }
        StringRedisTemplate template = TestRedis.clusterTemplate(cluster.nodes(), TIMEOUT);
        try {
          Topology many =
              new Topology(
                  template,
                  new GateLayout(partitions, null),
                  cluster.ports(),
                  p -> cluster.portOfSlot(p.slot()));
          Map<Integer, Integer> perMaster = new TreeMap<>();
          many.layout()
              .partitions()
              .forEach(p -> perMaster.merge(cluster.portOfSlot(p.slot()), 1, Integer::sum));
          System.out.printf(
              "%nRedis Cluster of %d masters: redis-server %s on %s (slots in contiguous ranges),"
                  + " %d partitions, per master (port=partitions) %s%n",
              masters,
              version(admin, cluster.ports().get(0)),
              cluster.nodes(),
              partitions,
              perMaster);
          warm(settings, many, buckets, admin);
          System.out.printf(
              "%n== row 2: cluster of %d masters, %d partitions, 1 bucket%n", masters, partitions);
          rows.put("cluster-1-bucket", row("cluster-1-bucket", settings, many, 1, admin));
          System.out.printf(
              "%n== row 3: cluster of %d masters, %d partitions, %d buckets%n",
              masters, partitions, buckets);
          String name = "cluster-" + buckets + "-buckets";
          rows.put(name, row(name, settings, many, buckets, admin));
        } finally {
          destroy(template);
        }
      } finally {
        cluster.close();
        System.out.println("rows 2 and 3: the cluster's redis-servers stopped");
      }
    } finally {
      admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    // RESULT <row> <decisions/s> <JVM CPU us> <every redis-server's CPU us> <busiest one's CPU us>,
    // CPU per decision, each the median of the rounds.
    System.out.println();
    rows.forEach(
        (name, result) ->
            System.out.printf(
                "RESULT %s %.0f %.1f %.1f %.1f%n",
                name, result.rate(), result.jvmUs(), result.serversUs(), result.busiestUs()));
  }

  private record Settings(
      int threads, int warmup, int rounds, int seconds, int users, long warmCalls) {}

  /** Where a row runs: the template, the layout, the servers' ports and each partition's server. */
  private record Topology(
      StringRedisTemplate template,
      GateLayout layout,
      List<Integer> ports,
      Function<GateLayout.Partition, Integer> portOf) {}

  /**
   * A row's medians: decisions/s, and CPU time per decision in microseconds of this JVM, of every
   * redis-server together and of the busiest one.
   */
  private record Result(double rate, double jvmUs, double serversUs, double busiestUs) {}

  /**
   * The same calls as the rows, on a SKU of its own, not measured, before the first row on a
   * topology, for {@code warmup} s and at least {@code warmcalls} calls (at most {@link
   * #WARM_LIMIT}): the JIT compiles the gate's and this topology's client code (standalone or
   * cluster connection) before any row is measured, so that the first row is not the one that pays
   * for it.
   */
  private static void warm(Settings settings, Topology topology, int buckets, RedisClient admin)
      throws InterruptedException {
    Settings warmOnly =
        new Settings(
            settings.threads(), settings.warmup(), 0, 0, settings.users(), settings.warmCalls());
    row("warm-up", warmOnly, topology, buckets, admin);
  }

  /**
   * Registers the hot SKU in {@code buckets} buckets, measures it, checks the buckets and clears
   * the servers.
   */
  private static Result row(
      String name, Settings settings, Topology topology, int buckets, RedisClient admin)
      throws InterruptedException {
    StringRedisTemplate template = topology.template();
    GateLayout layout = topology.layout();
    String sku = name + "-sku";
    // A gate of its own: its session sets the markers of every partition (epoch 1).
    WholeGate gate = TestRedis.gate(template, layout, Duration.ofDays(1));
    gate.register(sku, STOCK, null, buckets);
    List<GateLayout.Partition> placed =
        buckets == 1
            ? List.of(layout.of(sku))
            : layout.buckets(
                String.valueOf(template.opsForHash().get(layout.counters(sku), "buckets")));
    Map<String, Map<String, Long>> before = counters(template, sku, placed);
    for (int b = 0; b < placed.size(); b++) {
      GateLayout.Partition p = placed.get(b);
      System.out.printf(
          "%s: SKU %s bucket %d in partition %d (tag %s, slot %d) on port %d, available %d%n",
          name,
          sku,
          b,
          p.index(),
          p.tag(),
          p.slot(),
          topology.portOf().apply(p),
          before.get(p.tag()).get("available"));
    }
    List<ReservationLine> lines = List.of(new ReservationLine(sku, 1));
    Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    Result result =
        measure(
            name,
            settings,
            topology.ports(),
            admin,
            outcomes,
            (id, user) ->
                gate.reserve(new Admission(id, user, lines, HOLD, Instant.now()))
                    .getClass()
                    .getSimpleName());

    // Checks: every call admitted, the admissions are the reserved units, no bucket ran short.
    Map<String, Map<String, Long>> after = counters(template, sku, placed);
    long admitted = outcomes.getOrDefault("Admitted", new LongAdder()).sum();
    long calls = outcomes.values().stream().mapToLong(LongAdder::sum).sum();
    long reserved = 0;
    boolean ok = admitted == calls;
    for (int b = 0; b < placed.size(); b++) {
      Map<String, Long> counters = after.get(placed.get(b).tag());
      long taken = counters.get("reserved") - before.get(placed.get(b).tag()).get("reserved");
      reserved += taken;
      ok &= counters.get("available") > 0 && counters.getOrDefault("outgoing", 0L) == 0;
      System.out.printf(
          "%s: bucket %d took %d (%.1f%% of the admissions), %d available, %d outgoing%n",
          name,
          b,
          taken,
          admitted == 0 ? 0 : 100.0 * taken / admitted,
          counters.get("available"),
          counters.getOrDefault("outgoing", 0L));
    }
    ok &= reserved == admitted;
    System.out.printf(
        "%s check: %d calls, %d admitted, %d units reserved in the buckets: %s%n",
        name, calls, admitted, reserved, ok ? "ok" : "NOT ok");

    long keys = 0;
    long left = 0;
    for (int port : topology.ports()) {
      keys += on(admin, port, RedisCommands::dbsize);
      on(admin, port, RedisCommands::flushall);
      left += on(admin, port, RedisCommands::dbsize);
    }
    System.out.printf("%s cleanup: %d keys deleted (FLUSHALL), %d left%n", name, keys, left);
    if (!ok) {
      throw new IllegalStateException(name + ": not every call was admitted: figures not valid");
    }
    return result;
  }

  /** One decision; returns the outcome's name. */
  private interface Call {
    String decide(String reservationId, String userId);
  }

  /** Runs the calls; prints each round and the medians; returns the medians. */
  private static Result measure(
      String name,
      Settings settings,
      List<Integer> ports,
      RedisClient admin,
      Map<String, LongAdder> outcomes,
      Call call)
      throws InterruptedException {
    LongAdder decisions = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> workers = new ArrayList<>();
    int threads = settings.threads();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread worker =
          new Thread(
              () -> {
                String ids = name + "-" + thread + "-";
                for (long n = 0; !stop.get(); n++) {
                  String user = "u-" + ((thread + n * threads) % settings.users());
                  String outcome;
                  try {
                    outcome = call.decide(ids + n, user);
                  } catch (RuntimeException e) {
                    outcome = e.getClass().getSimpleName() + ": " + e.getMessage();
                  }
                  outcomes.computeIfAbsent(outcome, k -> new LongAdder()).increment();
                  decisions.increment();
                }
              },
              name + "-" + t);
      workers.add(worker);
      worker.start();
    }
    long started = System.nanoTime();
    Thread.sleep(settings.warmup() * 1000L);
    if (settings.rounds() == 0) {
      // A topology's first warm-up: on until the JIT has seen enough calls, within a bound.
      long bound = started + WARM_LIMIT.toNanos();
      while (decisions.sum() < settings.warmCalls() && System.nanoTime() < bound) {
        Thread.sleep(100);
      }
    }
    long warmedNanos = System.nanoTime() - started;
    int rounds = settings.rounds();
    double[] rates = new double[rounds];
    double[] jvm = new double[rounds];
    double[] servers = new double[rounds];
    double[] busiest = new double[rounds];
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    for (int r = 0; r < rounds; r++) {
      long count = decisions.sum();
      long cpu = os.getProcessCpuTime();
      List<double[]> statsBefore = serverStats(admin, ports);
      long start = System.nanoTime();
      Thread.sleep(settings.seconds() * 1000L);
      count = decisions.sum() - count;
      long elapsed = System.nanoTime() - start;
      jvm[r] = (os.getProcessCpuTime() - cpu) / 1e3 / count;
      List<double[]> statsAfter = serverStats(admin, ports);
      rates[r] = count * 1e9 / elapsed;
      StringBuilder perServer = new StringBuilder();
      for (int s = 0; s < ports.size(); s++) {
        double cpuUs = (statsAfter.get(s)[0] - statsBefore.get(s)[0]) * 1e6 / count;
        long scripts = (long) (statsAfter.get(s)[1] - statsBefore.get(s)[1]);
        servers[r] += cpuUs;
        busiest[r] = Math.max(busiest[r], cpuUs);
        perServer.append(
            String.format(
                "%s%d: %.0f us, %d scripts", s == 0 ? "" : "; ", ports.get(s), cpuUs, scripts));
      }
      System.out.printf(
          "%s round %d: %.0f decisions/s, %.0f us CPU of this JVM per decision, load average %.1f;"
              + " redis-server CPU per decision and script calls: %s%n",
          name, r + 1, rates[r], jvm[r], os.getSystemLoadAverage(), perServer);
    }
    stop.set(true);
    for (Thread worker : workers) {
      worker.join();
    }
    Result result = new Result(median(rates), median(jvm), median(servers), median(busiest));
    if (rounds == 0) {
      System.out.printf(
          "%s: %d calls in %.1f s, not measured; outcomes: %s%n",
          name, decisions.sum(), warmedNanos / 1e9, new TreeMap<>(outcomes));
    } else {
      System.out.printf(
          "%s median: %.0f decisions/s; outcomes of all %d calls (warm-up included): %s%n",
          name, result.rate(), decisions.sum(), new TreeMap<>(outcomes));
    }
    return result;
  }

  private static double median(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  /** Per server: CPU seconds (user + sys) and script calls (EVALSHA + EVAL) so far. */
  private static List<double[]> serverStats(RedisClient admin, List<Integer> ports) {
    List<double[]> stats = new ArrayList<>();
    for (int port : ports) {
      Map<String, String> cpu = info(admin, port, "cpu");
      Map<String, String> commands = info(admin, port, "commandstats");
      stats.add(
          new double[] {
            Double.parseDouble(cpu.get("used_cpu_user"))
                + Double.parseDouble(cpu.get("used_cpu_sys")),
            calls(commands.get("cmdstat_evalsha")) + calls(commands.get("cmdstat_eval"))
          });
    }
    return stats;
  }

  /** The {@code calls=} of a commandstats line ({@code calls=12,usec=...}), 0 when absent. */
  private static long calls(String stat) {
    if (stat == null) {
      return 0;
    }
    for (String field : stat.split(",")) {
      if (field.startsWith("calls=")) {
        return Long.parseLong(field.substring("calls=".length()));
      }
    }
    return 0;
  }

  /** Each bucket's counters, by its partition's tag. */
  private static Map<String, Map<String, Long>> counters(
      StringRedisTemplate template, String sku, List<GateLayout.Partition> placed) {
    Map<String, Map<String, Long>> all = new HashMap<>();
    for (GateLayout.Partition p : placed) {
      Map<String, Long> counters = new HashMap<>();
      template
          .opsForHash()
          .entries(p.counters(sku))
          .forEach(
              (field, value) -> {
                if (List.of("available", "reserved", "sold", "outgoing").contains(field)) {
                  counters.put(field.toString(), Long.parseLong(value.toString()));
                }
              });
      counters.putIfAbsent("reserved", 0L);
      all.put(p.tag(), counters);
    }
    return all;
  }

  private static String version(RedisClient admin, int port) {
    return info(admin, port, "server").get("redis_version");
  }

  private static Map<String, String> info(RedisClient admin, int port, String section) {
    Map<String, String> fields = new HashMap<>();
    for (String line : on(admin, port, commands -> commands.info(section)).split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return fields;
  }

  /** A command on a connection of its own to one server (a cluster node too: no redirection). */
  private static <T> T on(
      RedisClient admin, int port, Function<RedisCommands<String, String>, T> command) {
    RedisURI uri = RedisURI.Builder.redis("127.0.0.1", port).withTimeout(TIMEOUT).build();
    try (StatefulRedisConnection<String, String> connection = admin.connect(uri)) {
      return command.apply(connection.sync());
    }
  }

  private static void destroy(StringRedisTemplate template) {
    ((LettuceConnectionFactory) template.getConnectionFactory()).destroy();
  }

  /** Appends a server's process id to the calling script's list. */
  private static void record(Path pids, long pid) throws IOException {
    if (pids != null) {
      Files.writeString(
          pids,
          pid + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    }
  }

  /**
   * A plain redis-server on a free loopback port, as the cluster's nodes run (no persistence), in a
   * folder of its own; killed on close and when this JVM exits.
   */
  private static final class Standalone implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Thread killOnExit;

    private Standalone(Process process, int port) {
      this.process = process;
      this.port = port;
      this.killOnExit = new Thread(process::destroyForcibly, "standalone-redis-killer");
      Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    static Standalone start(String binary, Path dir) throws IOException, InterruptedException {
      Files.createDirectories(dir);
      IllegalStateException failure = null;
      // Another process may take the port between the check and the bind: try another.
      for (int attempt = 1; attempt <= 5; attempt++) {
        int port = freePort();
        Process process =
            new ProcessBuilder(
                    binary,
                    "--port",
                    String.valueOf(port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    dir.toAbsolutePath().toString())
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
                .start();
        Standalone redis = new Standalone(process, port);
        try {
          redis.awaitAnswer();
          return redis;
        } catch (IllegalStateException e) {
          failure = e;
          redis.close();
        }
      }
      throw failure;
    }

    private void awaitAnswer() throws InterruptedException {
      RedisClient client = RedisClient.create();
      try {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
          if (!process.isAlive()) {
            throw new IllegalStateException(
                "redis-server on port " + port + " exited with " + process.exitValue());
          }
          try {
            String pid = info(client, port, "server").get("process_id");
            if (Long.parseLong(pid) != process.pid()) {
              throw new IllegalStateException(
                  "process " + pid + " answers on port " + port + ", not " + process.pid());
            }
            return;
          } catch (RedisException notYet) {
            Thread.sleep(100);
          }
        }
        throw new IllegalStateException(
            "redis-server on port " + port + " did not answer within " + START_TIMEOUT);
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }

    private static int freePort() {
      try (ServerSocket socket = new ServerSocket()) {
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress("127.0.0.1", 0));
        return socket.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException("No free port", e);
      }
    }

    @Override
    public void close() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      try {
        Runtime.getRuntime().removeShutdownHook(killOnExit);
      } catch (IllegalStateException shuttingDown) {
        // The hook runs anyway and kills what is left: nothing.
      }
    }
  }

  private static String required(Map<String, String> options, String key) {
    String value = options.get(key);
    if (value == null) {
      throw new IllegalArgumentException("Missing argument " + key + "=...");
    }
    return value;
  }

  /** Without Spring Boot's logging setup Logback would log every command at DEBUG. */
  private static void quietLogging() {
    if (org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
        instanceof ch.qos.logback.classic.Logger root) {
      root.setLevel(ch.qos.logback.classic.Level.WARN);
    }
  }
}
