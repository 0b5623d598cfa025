package io.stockade.query.replay;

import io.stockade.platform.testing.ApiClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads of the query side, one path after the other on a thread of their own from their creation
 * until closed, every answer's status counted: what a replay must serve without a pause.
 */
final class Reads implements AutoCloseable {

  private final ApiClient http;
  private final List<String> paths;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong count = new AtomicLong();
  private final Map<String, Integer> failures = new ConcurrentHashMap<>();
  private final Thread thread;

  Reads(ApiClient http, List<String> paths) {
    this.http = http;
    this.paths = List.copyOf(paths);
    this.thread = new Thread(this::read, "reads");
    thread.start();
  }

  private void read() {
    while (running.get()) {
      for (String path : paths) {
        int status;
        try {
          status = http.get(path).getStatusCode().value();
        } catch (RuntimeException e) {
          status = -1;
        }
        if (status != 200) {
          failures.merge(path + " " + status, 1, Integer::sum);
        }
        count.incrementAndGet();
      }
    }
  }

  /** The reads answered so far. */
  long count() {
    return count.get();
  }

  /** Each path and status other than 200 (-1: no answer), with how many times it came. */
  Map<String, Integer> failures() {
    return Map.copyOf(failures);
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    thread.join();
  }
}
