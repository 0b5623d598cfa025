package io.stockade.bench.http;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * The append ceiling: single-row INSERTs into a copy of the event table, autocommit, one connection
 * per thread, as many threads as the HTTP workloads have users. Each row carries the payload and
 * metadata of a StockReserved event the service stored, so rows are the size of the service's.
 * Prints {@code RESULT append-ceiling <inserts/s> <p50> <p99> <p99.9>} (milliseconds).
 *
 * <p>Arguments, as {@code name=value}: {@code url} (the JDBC URL of the service's database), {@code
 * user}, {@code password}, {@code threads}, {@code warmup} and {@code seconds}.
 */
public final class AppendCeiling {

  private static final String TABLE = "append_ceiling";

  private AppendCeiling() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> arguments = new HashMap<>();
    for (String argument : args) {
      String[] pair = argument.split("=", 2);
      arguments.put(pair[0], pair.length == 2 ? pair[1] : "");
    }
    String url = arguments.get("url");
    String user = arguments.getOrDefault("user", "root");
    String password = arguments.getOrDefault("password", "");
    int threads = Integer.parseInt(arguments.getOrDefault("threads", "32"));
    long warmUpNanos = Long.parseLong(arguments.getOrDefault("warmup", "10")) * 1_000_000_000L;
    long measuredNanos = Long.parseLong(arguments.getOrDefault("seconds", "30")) * 1_000_000_000L;
    System.out.printf(
        "PARAMETERS append-ceiling threads=%d model=closed warmUpSeconds=%d durationSeconds=%d"
            + " table=%s autocommit=true%n",
        threads, warmUpNanos / 1_000_000_000L, measuredNanos / 1_000_000_000L, TABLE);

    EventRow sample;
    try (Connection connection = DriverManager.getConnection(url, user, password)) {
      sample = EventRow.sampleOf(connection);
      try (Statement statement = connection.createStatement()) {
        statement.execute("DROP TABLE IF EXISTS " + TABLE);
        statement.execute("CREATE TABLE " + TABLE + " LIKE domain_event_entry");
      }
    }

    long start = System.nanoTime();
    long measureFrom = start + warmUpNanos;
    long measureUntil = measureFrom + measuredNanos;
    AtomicLong lastEnd = new AtomicLong(measureUntil);
    List<Inserter> inserters = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      inserters.add(
          new Inserter(
              DriverManager.getConnection(url, user, password),
              sample,
              TABLE,
              measureFrom,
              measureUntil,
              lastEnd));
    }
    List<Thread> running = new ArrayList<>();
    for (Inserter inserter : inserters) {
      Thread thread = new Thread(inserter, "inserter-" + running.size());
      thread.start();
      running.add(thread);
    }
    for (Thread thread : running) {
      thread.join();
    }

    Histogram latencies = new Histogram(3);
    for (Inserter inserter : inserters) {
      if (inserter.failure() != null) {
        throw new IllegalStateException("an inserter failed", inserter.failure());
      }
      latencies.add(inserter.latencies());
    }
    double seconds = (lastEnd.get() - measureFrom) / 1e9;
    System.out.printf(
        "RESULT append-ceiling %.0f %.2f %.2f %.2f%n",
        latencies.getTotalCount() / seconds,
        latencies.getValueAtPercentile(50) / 1000.0,
        latencies.getValueAtPercentile(99) / 1000.0,
        latencies.getValueAtPercentile(99.9) / 1000.0);
    System.out.printf(
        "OUTCOMES append-ceiling inserts=%d seconds=%.1f%n", latencies.getTotalCount(), seconds);
    try (Connection connection = DriverManager.getConnection(url, user, password);
        Statement statement = connection.createStatement()) {
      statement.execute("DROP TABLE " + TABLE);
    }
  }
}
