package io.stockade.bench.engines;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * One round of one engine: stocks a fresh SKU, lets the workload's threads take attempts off one
 * shared counter until all are made (each timed on its own), then reads back from the store what
 * was taken.
 */
final class Round {

  private Round() {}

  static RoundResult run(Engine engine, String sku, Workload workload) throws Exception {
    engine.stock(sku, workload.stock());
    AtomicLong next = new AtomicLong();
    AtomicReference<Throwable> firstError = new AtomicReference<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Worker> workers = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < workload.threads(); t++) {
      Worker worker = new Worker(engine, sku, workload.attempts(), next, firstError, start);
      Thread thread = new Thread(worker, engine.name() + "-" + t);
      thread.start();
      workers.add(worker);
      threads.add(thread);
    }
    long begin = System.nanoTime();
    start.countDown();
    Histogram latencies = new Histogram(3);
    long admitted = 0;
    long errors = 0;
    for (Thread thread : threads) {
      thread.join();
    }
    double seconds = (System.nanoTime() - begin) / 1e9;
    for (Worker worker : workers) {
      latencies.add(worker.latencies);
      admitted += worker.admitted;
      errors += worker.errors;
    }
    Throwable error = firstError.get();
    return new RoundResult(
        workload.attempts() / seconds,
        latencies.getValueAtPercentile(50) / 1e3,
        latencies.getValueAtPercentile(99) / 1e3,
        seconds,
        admitted,
        errors,
        error == null ? null : error.toString(),
        engine.taken(sku, workload.stock()),
        workload.stock());
  }

  /** A thread making attempts until the round's are used up; its counts are read after join. */
  private static final class Worker implements Runnable {

    final Histogram latencies = new Histogram(3);
    long admitted;
    long errors;

    private final Engine engine;
    private final String sku;
    private final long attempts;
    private final AtomicLong next;
    private final AtomicReference<Throwable> firstError;
    private final CountDownLatch start;

    Worker(
        Engine engine,
        String sku,
        long attempts,
        AtomicLong next,
        AtomicReference<Throwable> firstError,
        CountDownLatch start) {
      this.engine = engine;
      this.sku = sku;
      this.attempts = attempts;
      this.next = next;
      this.firstError = firstError;
      this.start = start;
    }

    @Override
    public void run() {
      try {
        start.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      for (long n = next.getAndIncrement(); n < attempts; n = next.getAndIncrement()) {
        long began = System.nanoTime();
        try {
          if (engine.attempt(sku, "user-" + n, n)) {
            admitted++;
          }
        } catch (Exception | Error e) {
          errors++;
          firstError.compareAndSet(null, e);
        }
        latencies.recordValue(System.nanoTime() - began);
      }
    }
  }
}
