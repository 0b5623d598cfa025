package io.stockade.query.reconciliation;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuEvent;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.BenchRun;
import io.stockade.platform.testing.TestTokens;
import io.stockade.query.QuerySideApplication;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Benchmark driver for {@code bench/reconciliation}: what one reconciliation check costs Redis (its
 * CPU, from {@code INFO cpu}) and the query side (CPU of the process, wall time) when the gate
 * keeps {@code intents} intents, a full check against the routine checks.
 *
 * <ol>
 *   <li>starts a Redis of its own (a real redis-server on a free port) and the query side on a
 *       database of its own, its reconciliation schedule off;
 *   <li>writes a gate open in one partition: {@code intents} CONFIRMED intents of one unit each,
 *       spread over {@code skus} SKUs, with their rows CONFIRMED in the reservation view (so every
 *       intent agrees; the event store holds the SKUs' registrations only, so the SKUs' counters
 *       are not what is measured);
 *   <li>runs a full check (the first one), then {@code rounds} rounds of: {@code changes} new
 *       reservations (their {@code StockReserved} stored, their intents RESERVED, their rows left
 *       to the projection) followed by a routine check; then one routine check with nothing new,
 *       and a second full check.
 * </ol>
 *
 * Prints {@code RESULT <kind> <wall ms> <redis cpu ms> <check cpu ms> <intents read>} per check
 * (the check's CPU is that of the thread running it; the projections' work on the new reservations
 * is done before it begins). Options as key=value: host, port, user, password (the MariaDB:
 * 127.0.0.1, 3306, root, empty), database (stockade_bench_reconciliation), intents (1000000), skus
 * (100), changes (10000), rounds (3), keep (false: drop the database at the end).
 */
public final class ReconciliationThroughput {

  private static final String TAG = "bench";

  /** The check runs on the calling thread: its CPU is the check's, not the projections'. */
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private ReconciliationThroughput() {}

  public static void main(String[] args) throws Exception {
    BenchRun run = BenchRun.of(args, "stockade_bench_reconciliation");
    String user = run.user();
    String password = run.password();
    int intents = run.number("intents", 1_000_000);
    int skus = run.number("skus", 100);
    int changes = run.number("changes", 10_000);
    int rounds = run.number("rounds", 3);
    run.createDatabase();
    Path redisDir = Files.createTempDirectory("bench-reconciliation-redis");
    EmbeddedRedis redisServer = EmbeddedRedis.start(redisDir);
    String url = run.url();
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(QuerySideApplication.class)
            .run(
                "--server.port=0",
                "--spring.datasource.url=" + url,
                "--spring.datasource.username=" + user,
                "--spring.datasource.password=" + password,
                "--spring.data.redis.host=127.0.0.1",
                "--spring.data.redis.port=" + redisServer.port(),
                "--spring.data.redis.timeout=120s",
                "--logging.level.root=WARN",
                // No request is made, but a service does not start without a token key.
                "--spring.security.oauth2.resourceserver.jwt.public-key-location="
                    + TestTokens.PUBLIC_KEY_LOCATION,
                "--stockade.reconciliation.interval=0s",
                // The service's own warm-up would run beside the measurements.
                "--stockade.warm-up.enabled=false");
    try {
      StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
      EventStore eventStore = context.getBean(EventStore.class);
      TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
      Reconciliation reconciliation = context.getBean(Reconciliation.class);

      long started = System.nanoTime();
      List<EventMessage<?>> registrations = new ArrayList<>();
      for (int s = 0; s < skus; s++) {
        registrations.add(event(new SkuRegistered(sku(s), 1_000_000_000, null), 0));
      }
      publish(eventStore, transaction, registrations);
      writeGate(redis, intents, skus);
      System.out.printf("gate written in %.1f s%n", (System.nanoTime() - started) / 1e9);
      try (Connection connection = run.connect()) {
        writeRows(connection, intents, skus);
      }
      System.out.printf(
          "seeded %,d intents and rows in %.1f s%n", intents, (System.nanoTime() - started) / 1e9);

      measure("full", reconciliation, redis, true);
      int next = intents;
      for (int round = 0; round < rounds; round++) {
        List<EventMessage<?>> reserved = new ArrayList<>();
        for (int i = 0; i < changes; i++, next++) {
          String id = "bench-R-" + next;
          reserved.add(event(reserved(id, sku(next % skus)), 0));
        }
        final int from = next - changes;
        redis.executePipelined(
            (RedisCallback<Object>)
                connection -> {
                  for (int i = from; i < from + changes; i++) {
                    intent(connection, "bench-R-" + i, "RESERVED", sku(i % skus));
                  }
                  return null;
                });
        publish(eventStore, transaction, reserved);
        // The projection's work is done before the check, so as not to be measured with it.
        try (Connection connection = run.connect()) {
          awaitRows(connection, next);
        }
        measure("routine(" + changes + " new)", reconciliation, redis, false);
      }
      measure("routine(nothing new)", reconciliation, redis, false);
      measure("full", reconciliation, redis, true);
    } finally {
      context.close();
      redisServer.stop();
      run.dropDatabase();
    }
    // Threads of the closed context's clients may linger; the measurement is done.
    System.exit(0);
  }

  private static void measure(
      String kind, Reconciliation reconciliation, StringRedisTemplate redis, boolean full) {
    double redisBefore = redisCpuSeconds(redis);
    long cpuBefore = THREADS.getCurrentThreadCpuTime();
    long started = System.nanoTime();
    ReconciliationReport report = reconciliation.check(full);
    long wall = System.nanoTime() - started;
    long cpu = THREADS.getCurrentThreadCpuTime() - cpuBefore;
    double redisCpu = redisCpuSeconds(redis) - redisBefore;
    System.out.printf(
        "RESULT %s %.0f %.0f %.0f %d scope=%s mismatches=%s%n",
        kind.replace(' ', '_'),
        wall / 1e6,
        redisCpu * 1e3,
        cpu / 1e6,
        report.gate().intents(),
        report.gate().scope(),
        report.summary().reservationMismatches());
  }

  /** Redis's own CPU (user and system), from INFO cpu. */
  private static double redisCpuSeconds(StringRedisTemplate redis) {
    Properties cpu = redis.execute((RedisCallback<Properties>) c -> c.serverCommands().info("cpu"));
    return Double.parseDouble(cpu.getProperty("used_cpu_user"))
        + Double.parseDouble(cpu.getProperty("used_cpu_sys"));
  }

  /** Waits until the projection has a row for every reservation. */
  private static void awaitRows(Connection connection, long rows) throws Exception {
    while (true) {
      try (Statement statement = connection.createStatement();
          var result = statement.executeQuery("select count(*) from reservation_view")) {
        result.next();
        if (result.getLong(1) >= rows) {
          return;
        }
      }
      Thread.sleep(200);
    }
  }

  private static String sku(int s) {
    return "bench-sku-" + s;
  }

  private static StockReserved reserved(String id, String sku) {
    Instant now = Instant.now();
    return new StockReserved(
        id, "u-1", List.of(new ReservationLine(sku, 1)), now, now.plusSeconds(900), 1, 1);
  }

  private static EventMessage<?> event(Object payload, long sequence) {
    String type = payload instanceof ReservationEvent ? "Reservation" : "Sku";
    String stream =
        payload instanceof ReservationEvent reservation
            ? ReservationEvent.streamId(reservation.reservationId())
            : SkuEvent.streamId(((SkuRegistered) payload).skuId());
    return new GenericDomainEventMessage<>(
        type, stream, sequence, payload, Map.of(), UUID.randomUUID().toString(), Instant.now());
  }

  private static void publish(
      EventStore eventStore, TransactionTemplate transaction, List<EventMessage<?>> events) {
    for (int from = 0; from < events.size(); from += 1000) {
      List<EventMessage<?>> batch = events.subList(from, Math.min(events.size(), from + 1000));
      transaction.executeWithoutResult(status -> eventStore.publish(batch));
    }
  }

  /** The marker of one open partition and the intents, pipelined. */
  private static void writeGate(StringRedisTemplate redis, int intents, int skus) {
    redis
        .opsForHash()
        .putAll(
            "stockade:{" + TAG + "}:gate",
            Map.of("epoch", "1", "runId", "bench", "partitions", "1", "placement", ""));
    for (int from = 0; from < intents; from += 10_000) {
      int start = from;
      int end = Math.min(intents, from + 10_000);
      redis.executePipelined(
          (RedisCallback<Object>)
              connection -> {
                for (int i = start; i < end; i++) {
                  intent(connection, "bench-R-" + i, "CONFIRMED", sku(i % skus));
                }
                return null;
              });
    }
  }

  private static void intent(RedisConnection connection, String id, String state, String sku) {
    connection
        .hashCommands()
        .hMSet(
            bytes("stockade:{" + TAG + "}:reservation:" + id),
            Map.of(
                bytes("state"), bytes(state),
                bytes("user"), bytes("u-1"),
                bytes("lines"), bytes(sku + " 1"),
                bytes("sequence"), bytes("1")));
  }

  /** The rows, 1,000 to an INSERT (the values are the driver's own, never a user's). */
  private static void writeRows(Connection connection, int intents, int skus) throws Exception {
    connection.setAutoCommit(false);
    try (Statement statement = connection.createStatement()) {
      for (int from = 0; from < intents; from += 1000) {
        StringBuilder sql =
            new StringBuilder(
                "insert into reservation_view (reservation_id, user_id, status, lines_json,"
                    + " created_at, confirmed_at, last_sequence, updated_at) values ");
        for (int i = from; i < Math.min(intents, from + 1000); i++) {
          sql.append(i == from ? "" : ",")
              .append("('bench-R-")
              .append(i)
              .append("','u-1','CONFIRMED','[{\"skuId\":\"")
              .append(sku(i % skus))
              .append("\",\"quantity\":1}]',")
              .append("'2026-11-30 10:00:00','2026-11-30 10:00:00',1,'2026-11-30 10:00:00')");
        }
        statement.execute(sql.toString());
        if (from % 50_000 == 0) {
          connection.commit();
        }
      }
      connection.commit();
    }
  }

  private static byte[] bytes(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }
}
