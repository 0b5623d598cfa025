package io.stockade.bench.http;

import io.gatling.javaapi.core.Session;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The responses of one phase of a workload: their latencies (Gatling measures milliseconds), their
 * status codes, the failed ones, and the window from the first user entering the phase to the last
 * one leaving it, over which the throughput is counted.
 */
final class Measurement {

  static final String STATUS = "status";
  static final String LATENCY = "latency";

  private final Histogram latencies = new ConcurrentHistogram(3);
  private final Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
  private final LongAdder failures = new LongAdder();
  private final AtomicLong firstStart = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong lastStop = new AtomicLong(Long.MIN_VALUE);

  Session start(Session session) {
    firstStart.accumulateAndGet(System.nanoTime(), Math::min);
    return session;
  }

  Session stop(Session session) {
    lastStop.accumulateAndGet(System.nanoTime(), Math::max);
    return session;
  }

  /**
   * Records the response the session has just had. A failed check (an unexpected status, a timeout)
   * counts as a failure; the session is then marked as succeeded again, so that the next response
   * is judged on its own.
   */
  Session record(Session session) {
    latencies.recordValue(session.getInt(LATENCY));
    if (session.isFailed()) {
      failures.increment();
      return session.markAsSucceeded();
    }
    statuses.computeIfAbsent(session.getInt(STATUS), status -> new LongAdder()).increment();
    return session;
  }

  long count(int status) {
    LongAdder count = statuses.get(status);
    return count == null ? 0 : count.sum();
  }

  long failures() {
    return failures.sum();
  }

  /** Prints the RESULT line (requests/s, p50, p99, p99.9 in ms) and the outcomes of the phase. */
  void print(String name) {
    double seconds = (lastStop.get() - firstStart.get()) / 1e9;
    long responses = latencies.getTotalCount();
    System.out.printf(
        "RESULT %s %.0f %d %d %d%n",
        name,
        responses / seconds,
        latencies.getValueAtPercentile(50),
        latencies.getValueAtPercentile(99),
        latencies.getValueAtPercentile(99.9));
    StringBuilder outcomes = new StringBuilder("OUTCOMES " + name);
    new TreeMap<>(statuses)
        .forEach((status, count) -> outcomes.append(' ').append(status).append('=').append(count));
    outcomes.append(" failed=").append(failures());
    outcomes.append(String.format(" responses=%d seconds=%.1f", responses, seconds));
    System.out.println(outcomes);
  }
}
