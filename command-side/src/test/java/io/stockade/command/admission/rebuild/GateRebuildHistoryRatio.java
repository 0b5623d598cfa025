package io.stockade.command.admission.rebuild;

import io.stockade.command.CommandSideApplication;
import io.stockade.platform.testing.BenchRun;
import io.stockade.platform.testing.GeneratedEventStore;
import io.stockade.platform.testing.TestTokens;
import java.sql.Connection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.axonframework.config.EventProcessingConfiguration;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@code HISTORY_RATIO=1 bench/gate-rebuild}: the time until the gate opens after Redis lost its
 * data, with the same live state behind two lengths of history. The store holds {@code live}
 * reservations still held and, before them, ended reservations (each reserved and then confirmed or
 * released, long before the intent retention) up to {@code shortEvents}; a checkpoint is taken,
 * {@code tail} more events of ended reservations come after it (a checkpoint is taken every 100,000
 * events by default: a rebuild folds half of that on average), and the gate is rebuilt. Then ended
 * reservations are added up to {@code longEvents}, a checkpoint is taken again (its time reported:
 * the background work the longer history costs), the same tail, and the gate is rebuilt again.
 * Target: the second within 1.3 times the first, and under 3 s.
 */
public final class GateRebuildHistoryRatio {

  private GateRebuildHistoryRatio() {}

  public static void main(String[] args) throws Exception {
    BenchRun run = BenchRun.of(args, "stockade_bench_rebuild");
    int skus = run.number("skus", 100);
    int live = run.number("live", 200_000);
    int shortEvents = run.number("shortEvents", 1_000_000);
    int longEvents = run.number("longEvents", 4_000_000);
    int tail = run.number("tail", 50_000);
    Map<String, String> pids = new LinkedHashMap<>();
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
                "--spring.datasource.url=" + run.url(),
                "--spring.datasource.username=" + run.user(),
                "--spring.datasource.password=" + run.password(),
                "--spring.data.redis.host=" + run.option("redisHost", "127.0.0.1"),
                "--spring.data.redis.port=" + run.option("redisPort", "6391"),
                "--logging.level.root=WARN",
                "--logging.level.io.stockade.command.admission.GateCheckpointWriter=INFO",
                "--spring.security.oauth2.resourceserver.jwt.public-key-location="
                    + TestTokens.PUBLIC_KEY_LOCATION,
                "--stockade.warm-up.enabled=false",
                // The bench takes the checkpoints itself, when the store is as it wants.
                "--stockade.gate.checkpoint.enabled=false",
                "--stockade.gate.checkpoint.every-events=1");
    try {
      app.getBean(EventProcessingConfiguration.class)
          .eventProcessor("gate-follower", StreamingEventProcessor.class)
          .orElseThrow()
          .shutDown();
      long sequence = 1;
      try (Connection connection = run.connect()) {
        GeneratedEventStore.registerSkus(connection, skus);
      }
      int history = (shortEvents - skus - live - tail) / 2;
      sequence = append(run, "bench-H", history, skus, true, sequence);
      sequence = append(run, "bench-L", live, skus, false, sequence);
      double[] first = measure(app, run, pids, skus, "short", tail / 2, sequence);
      sequence += tail / 2;
      int more = (longEvents - shortEvents - tail) / 2;
      sequence = append(run, "bench-H2", more, skus, true, sequence);
      double[] second = measure(app, run, pids, skus, "long", tail / 2, sequence);
      double ratio = second[0] / first[0];
      boolean met = ratio <= 1.3 && second[0] < 3.0;
      System.out.printf(
          "RESULT history short %.0f events %.2f s, long %.0f events %.2f s, ratio %.2f: %s%n",
          first[1], first[0], second[1], second[0], ratio, met ? "met" : "not met");
    } finally {
      app.close();
      run.dropDatabase();
    }
    System.exit(0);
  }

  private static long append(
      BenchRun run, String prefix, int count, int skus, boolean ended, long sequence)
      throws Exception {
    long started = System.nanoTime();
    try (Connection connection = run.connect()) {
      GeneratedEventStore.appendReservations(connection, prefix, count, skus, ended, sequence);
    }
    System.out.printf(
        "appended %d %s reservations (%s) in %.1f s%n",
        count, ended ? "ended" : "held", prefix, (System.nanoTime() - started) / 1e9);
    return sequence + count;
  }

  /**
   * Takes a checkpoint of the store, appends the tail ({@code tailReservations} ended ones), and
   * rebuilds the gate: the seconds until it opened, and the events in the store.
   */
  private static double[] measure(
      ConfigurableApplicationContext app,
      BenchRun run,
      Map<String, String> pids,
      int skus,
      String label,
      int tailReservations,
      long sequence)
      throws Exception {
    JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
    GateCheckpointWriter writer = app.getBean(GateCheckpointWriter.class);
    long head = jdbc.queryForObject("select max(global_index) from domain_event_entry", Long.class);
    long started = System.nanoTime();
    GateCheckpoints.Checkpoint checkpoint = null;
    long deadline = started + Duration.ofMinutes(10).toNanos();
    while (checkpoint == null || checkpoint.position() < head) {
      Optional<GateCheckpoints.Checkpoint> taken = writer.checkpointIfDue();
      if (taken.isPresent()) {
        checkpoint = taken.get();
      } else {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("No checkpoint at " + head + " after 10 minutes");
        }
        Thread.sleep(100);
      }
    }
    System.out.printf(
        "%s: checkpoint %d at %d (%d bytes) taken %.1f s after it was asked for%n",
        label,
        checkpoint.id(),
        checkpoint.position(),
        checkpoint.bytes(),
        (System.nanoTime() - started) / 1e9);
    append(run, "bench-T-" + label, tailReservations, skus, true, sequence);
    Map<String, Long> types =
        GateRebuildThroughput.countByType(run.url(), run.user(), run.password());
    long stored = types.values().stream().mapToLong(Long::longValue).sum();
    long sold = types.getOrDefault("io.stockade.api.reservation.StockConfirmed", 0L);
    long reserved =
        types.getOrDefault("io.stockade.api.reservation.StockReserved", 0L)
            - sold
            - types.getOrDefault("io.stockade.api.reservation.StockReleased", 0L);
    // Redis loses its data: every key goes, as at a restart without persistence (the rebuild
    // before this one left its keys, which a rebuild would otherwise clear while it reads).
    app.getBean(GateKeeper.class)
        .current()
        .redis()
        .execute(
            (RedisCallback<Object>)
                connection -> {
                  connection.serverCommands().flushAll();
                  return null;
                });
    Map<String, Double> phases = GateRebuildThroughput.rebuild(app, pids);
    double seconds = phases.values().stream().mapToDouble(Double::doubleValue).sum();
    GateRebuildThroughput.check(app, skus, reserved, sold);
    if (app.getBean(GateRebuild.class).lastCheckpoint() != checkpoint.id()) {
      throw new IllegalStateException("The rebuild did not go on from checkpoint " + checkpoint);
    }
    StringBuilder line = new StringBuilder();
    phases.forEach((phase, s) -> line.append(String.format(" %s %.2f s", phase, s)));
    System.out.printf(
        "%s: %d events, %d held; gate open %.2f s after Redis lost it:%s%n",
        label, stored, reserved, seconds, line);
    return new double[] {seconds, stored};
  }
}
