package io.stockade.bench.engines;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Benchmark, not a test: flash-sale admission engines side by side, in one JVM, on one workload
 * ({@link Workload}), one engine after the other: (a) {@code SELECT ... FOR UPDATE} then {@code
 * UPDATE}, (b) a conditional {@code UPDATE}, (c) a Redisson lock around a Redis counter, (d)
 * Stockade's admission gate. Each engine runs its warm-up rounds, then its measured rounds, each on
 * a fresh SKU; after every round the store is asked what was taken.
 *
 * <p>Prints every round, a table of each engine's median round, the gate's ratio to the conditional
 * {@code UPDATE}, and one line per engine {@code RESULT <engine> <attempts/s> <p50 us> <p99 us>
 * <admitted> <oversold>}; draws the chart when asked. Exits with 1 when any round of any engine
 * oversold, took other than the stock, disagreed with its store or had a failed attempt. Arguments:
 * see {@link Options}.
 */
public final class EngineBench {

  private EngineBench() {}

  public static void main(String[] args) throws Exception {
    quietLogging();
    Options options = Options.parse(args);
    Workload workload = options.workload();
    String prefix =
        "eb"
            + Long.toString(System.currentTimeMillis(), 36)
            + "-"
            + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
    List<EngineResult> results = new ArrayList<>();
    List<String> captions = new ArrayList<>();
    try (BenchDatabase database =
        new BenchDatabase(
            options.dbHost(), options.dbPort(), options.dbUser(), options.dbPassword())) {
      captions.add("workload: " + workload);
      captions.add("machine: " + Machine.describe());
      captions.add("stores: " + database.describe());
      captions.add("        " + Machine.redis(options.redisHost(), options.redisPort()));
      System.out.println("== Flash-sale admission engines, in-process ==");
      captions.forEach(System.out::println);
      System.out.printf(
          "run prefix %s (SKU ids and keys), database %s, load average %.2f at start%n",
          prefix, BenchDatabase.NAME, Machine.load());
      for (String name : options.engines()) {
        try (Engine engine = open(name, options, database, prefix)) {
          results.add(measure(engine, workload, prefix));
        }
      }
    }

    System.out.printf("%n== Median round of each engine ==%n%s", Report.table(results));
    results.stream().map(EngineResult::resultLine).forEach(System.out::println);
    if (options.chart() != null) {
      List<String> chartCaptions = new ArrayList<>(captions);
      Report.ratio(results)
          .ifPresent(
              ratio ->
                  chartCaptions.add(
                      String.format(
                          "gate / conditional-update: %.2f (target >= %.0f)",
                          ratio, Report.TARGET_RATIO)));
      BarChart.write(options.chart(), results, chartCaptions);
      System.out.println("chart: " + options.chart());
    }
    List<String> failures =
        results.stream()
            .flatMap(result -> result.failures().stream().map(f -> result.name() + ": " + f))
            .toList();
    if (!failures.isEmpty()) {
      System.out.println("FAILED:");
      failures.forEach(failure -> System.out.println("  " + failure));
      System.exit(1);
    }
    System.out.println("verified: every engine admitted exactly the stock, none oversold");
  }

  private static Engine open(String name, Options options, BenchDatabase database, String prefix)
      throws InterruptedException {
    int threads = options.workload().threads();
    return switch (name) {
      case "select-for-update" -> new SelectForUpdateEngine(database, threads);
      case "conditional-update" -> new ConditionalUpdateEngine(database, threads);
      case "redisson-lock" ->
          new RedissonLockEngine(options.redisHost(), options.redisPort(), threads, prefix);
      case "gate" -> new GateEngine(options.redisHost(), options.redisPort(), prefix);
      default -> throw new IllegalArgumentException("No engine " + name);
    };
  }

  /** Warm-up rounds, then measured rounds, each on a SKU of its own; every round is verified. */
  private static EngineResult measure(Engine engine, Workload workload, String prefix)
      throws Exception {
    List<RoundResult> measured = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    for (int round = 1; round <= workload.warmup() + workload.rounds(); round++) {
      boolean warmup = round <= workload.warmup();
      RoundResult result = Round.run(engine, prefix + "-" + engine.name() + "-r" + round, workload);
      String failure = result.failure();
      System.out.printf(
          "%s round %d%s: %,.0f attempts/s in %.1f s, p50 %,.0f us, p99 %,.0f us, admitted %d,"
              + " store says %d taken, errors %d, load average %.2f%s%n",
          engine.name(),
          round,
          warmup ? " (warm-up)" : "",
          result.throughput(),
          result.seconds(),
          result.p50Micros(),
          result.p99Micros(),
          result.admitted(),
          result.taken(),
          result.errors(),
          Machine.load(),
          failure == null ? "" : " -- WRONG: " + failure);
      if (failure != null) {
        failures.add("round " + round + ": " + failure);
      }
      if (!warmup) {
        measured.add(result);
      }
    }
    return new EngineResult(engine.name(), engine.description(), measured, failures);
  }

  /** Without Spring Boot's logging setup Logback would log every command at DEBUG. */
  private static void quietLogging() {
    if (org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
        instanceof ch.qos.logback.classic.Logger root) {
      root.setLevel(ch.qos.logback.classic.Level.WARN);
    }
  }
}
