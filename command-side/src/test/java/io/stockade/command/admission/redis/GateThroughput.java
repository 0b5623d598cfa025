package io.stockade.command.admission.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;

/**
 * Benchmark, not a test: admission decisions per second of the real {@link WholeGate} over one
 * {@link StringRedisTemplate} (one shared Lettuce connection, as in the service).
 *
 * <p>T threads each call {@code gate.reserve} in a loop, one unit of one SKU with practically
 * unlimited stock and no per-user limit, a new reservation id per call (so every call is an
 * admission that writes an intent), a handful of users. After a warm-up, R rounds are measured;
 * each prints its decisions/s (and this JVM's CPU time per decision, which other load on the
 * machine disturbs less), then the median, the outcomes (all should be {@code Admitted}) and a line
 * {@code RESULT gate <median>} for {@code bench/gate}. With {@code raw=true} the same loop runs
 * again calling Lettuce's {@code evalsha} with the same keys and arguments directly on a connection
 * of its own ({@code RESULT raw <median>}; {@code raw=only} skips the gate): the difference is the
 * cost of the gate and Spring's script execution, not of Redis. Keys of the run (unique prefix) are
 * deleted at the end; the partition's {@code stockade:{g0}:gate:sequence} is only incremented.
 *
 * <p>Arguments {@code key=value} (or system properties {@code gate.<key>}): host (127.0.0.1), port
 * (6379), threads (64), warmup (5 s), rounds (3), seconds (10), raw (false, true or only).
 */
final class GateThroughput {

  private static final Duration HOLD = Duration.ofMinutes(15);
  private static final String[] CODES = {
    "?", "Admitted", "Duplicate", "Reused", "Insufficient", "LimitExceeded", "UnknownSku"
  };

  /** One decision; returns the outcome's name. */
  private interface Call {
    String decide(String reservationId, String userId);
  }

  private GateThroughput() {}

  public static void main(String[] args) throws Exception {
    quietLogging();
    Map<String, String> options = new HashMap<>();
    for (String arg : args) {
      String[] pair = arg.split("=", 2);
      options.put(pair[0], pair.length > 1 ? pair[1] : "true");
    }
    String host = option(options, "host", "127.0.0.1");
    int port = Integer.parseInt(option(options, "port", "6379"));
    int threads = Integer.parseInt(option(options, "threads", "64"));
    int warmup = Integer.parseInt(option(options, "warmup", "5"));
    int rounds = Integer.parseInt(option(options, "rounds", "3"));
    int seconds = Integer.parseInt(option(options, "seconds", "10"));
    String raw = option(options, "raw", "false");

    String prefix =
        "gt"
            + Long.toString(System.currentTimeMillis(), 36)
            + "-"
            + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
    String sku = prefix + "-sku";
    List<ReservationLine> lines = List.of(new ReservationLine(sku, 1));

    System.out.printf(
        "redis %s:%d | threads %d | warm-up %d s | rounds %d x %d s | JDK %s %s | cores %d%n"
            + "run prefix %s, SKU %s, one shared Lettuce connection (StringRedisTemplate)%n",
        host,
        port,
        threads,
        warmup,
        rounds,
        seconds,
        System.getProperty("java.vm.name"),
        Runtime.version(),
        Runtime.getRuntime().availableProcessors(),
        prefix,
        sku);

    StringRedisTemplate redis = TestRedis.template(host, port, Duration.ofSeconds(5));
    RedisClient client = null;
    try {
      WholeGate gate = TestRedis.gate(redis, Duration.ofDays(1));
      gate.register(sku, 1_000_000_000_000_000L, null, 1);
      if (!raw.equals("only")) {
        double median =
            measure(
                "gate",
                threads,
                warmup,
                rounds,
                seconds,
                prefix,
                (id, user) ->
                    gate.reserve(new Admission(id, user, lines, HOLD, Instant.now()))
                        .getClass()
                        .getSimpleName());
        System.out.printf("RESULT gate %.0f%n", median);
      }

      if (!raw.equals("false")) {
        client = RedisClient.create(RedisURI.create(host, port));
        StatefulRedisConnection<String, String> connection = client.connect();
        String sha =
            connection
                .sync()
                .scriptLoad(
                    new ClassPathResource("lua/reserve.lua")
                        .getContentAsString(StandardCharsets.UTF_8));
        String epoch = String.valueOf(TestRedis.epoch(redis));
        double rawMedian =
            measure(
                "raw",
                threads,
                warmup,
                rounds,
                seconds,
                prefix,
                (id, user) -> {
                  // The keys and arguments WholeGate.reserve builds.
                  Admission admission = new Admission(id, user, lines, HOLD, Instant.now());
                  String[] keys = {
                    TestRedis.PARTITION.marker(),
                    TestRedis.PARTITION.intent(id),
                    TestRedis.PARTITION.sequence(),
                    TestRedis.PARTITION.pending(),
                    TestRedis.PARTITION.decisions(),
                    TestRedis.PARTITION.dropped(),
                    TestRedis.LAYOUT.counters(sku),
                    TestRedis.LAYOUT.holders(sku)
                  };
                  List<Object> reply =
                      connection
                          .sync()
                          .evalsha(
                              sha,
                              ScriptOutputType.MULTI,
                              keys,
                              epoch,
                              "0",
                              user,
                              admission.fingerprint(),
                              String.valueOf(admission.now().toEpochMilli()),
                              String.valueOf(HOLD.toMillis()),
                              "0",
                              "0",
                              "1000000",
                              "1",
                              sku,
                              "1");
                  return CODES[((Long) reply.get(0)).intValue()];
                });
        System.out.printf("RESULT raw %.0f%n", rawMedian);
      }
    } finally {
      System.out.printf(
          "cleanup: %d keys of prefix %s unlinked (SCAN + UNLINK)%n",
          cleanup(redis, prefix), prefix);
      if (client != null) {
        client.shutdown();
      }
      ((LettuceConnectionFactory) redis.getConnectionFactory()).destroy();
    }
  }

  /** Runs the calls; prints each round, the median and the outcomes; returns the median. */
  private static double measure(
      String mode, int threads, int warmup, int rounds, int seconds, String prefix, Call call)
      throws InterruptedException {
    LongAdder decisions = new LongAdder();
    Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String ids = prefix + "-" + mode + "-" + t + "-";
      String user = "user-" + (t % 5);
      Thread worker =
          new Thread(
              () -> {
                for (long n = 0; !stop.get(); n++) {
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
              mode + "-" + t);
      workers.add(worker);
      worker.start();
    }
    Thread.sleep(warmup * 1000L);
    double[] rates = new double[rounds];
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    for (int r = 0; r < rounds; r++) {
      long count = decisions.sum();
      long cpu = os.getProcessCpuTime();
      long start = System.nanoTime();
      Thread.sleep(seconds * 1000L);
      count = decisions.sum() - count;
      rates[r] = count * 1e9 / (System.nanoTime() - start);
      System.out.printf(
          "%s round %d: %.0f decisions/s, %.0f us CPU of this JVM per decision, load average %.1f%n",
          mode,
          r + 1,
          rates[r],
          (os.getProcessCpuTime() - cpu) / 1e3 / count,
          os.getSystemLoadAverage());
    }
    stop.set(true);
    for (Thread worker : workers) {
      worker.join();
    }
    Arrays.sort(rates);
    double median =
        rates.length % 2 == 1
            ? rates[rates.length / 2]
            : (rates[rates.length / 2 - 1] + rates[rates.length / 2]) / 2;
    System.out.printf(
        "%s median: %.0f decisions/s; outcomes of all %d calls (warm-up included): %s%n",
        mode, median, decisions.sum(), new TreeMap<>(outcomes));
    return median;
  }

  /**
   * Unlinks every key of the run (its intents and the SKU's counters and holders) and takes its
   * intents off the gate's pending set.
   */
  private static long cleanup(StringRedisTemplate redis, String prefix) {
    long deleted = 0;
    List<String> batch = new ArrayList<>();
    try (Cursor<ZSetOperations.TypedTuple<String>> pending =
        redis
            .opsForZSet()
            .scan(
                TestRedis.PARTITION.pending(),
                ScanOptions.scanOptions()
                    .match(TestRedis.PARTITION.intent(prefix) + "-*")
                    .count(1000)
                    .build())) {
      while (pending.hasNext()) {
        batch.add(pending.next().getValue());
        if (batch.size() == 1000 || !pending.hasNext()) {
          redis.opsForZSet().remove(TestRedis.PARTITION.pending(), batch.toArray());
          batch.clear();
        }
      }
    }
    for (String pattern :
        List.of(
            TestRedis.PARTITION.intent(prefix) + "-*",
            TestRedis.PARTITION.counters(prefix) + "-*")) {
      try (Cursor<String> keys =
          redis.scan(ScanOptions.scanOptions().match(pattern).count(1000).build())) {
        while (keys.hasNext()) {
          batch.add(keys.next());
          if (batch.size() == 1000 || !keys.hasNext()) {
            deleted += redis.unlink(batch);
            batch.clear();
          }
        }
      }
    }
    return deleted;
  }

  private static String option(Map<String, String> options, String key, String fallback) {
    return options.getOrDefault(key, System.getProperty("gate." + key, fallback));
  }

  /** Without Spring Boot's logging setup Logback would log every command at DEBUG. */
  private static void quietLogging() {
    if (org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
        instanceof ch.qos.logback.classic.Logger root) {
      root.setLevel(ch.qos.logback.classic.Level.WARN);
    }
  }
}
