package io.stockade.query.reconciliation;

import io.stockade.platform.concurrent.DaemonThreads;
import io.stockade.platform.web.ProblemException;
import io.stockade.query.QueryProblems;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Every reconciliation check of this instance, one at a time on one thread of its own: one every
 * {@code stockade.reconciliation.interval} (30 s; {@code 0} switches the schedule off), with a WARN
 * line per SKU in DRIFT, and one when a request finds the latest report older than {@code max-age}.
 * A request never runs a check itself: it is answered the latest report while that is young enough,
 * and otherwise waits, at most {@code request-wait}, for the next check, which every request that
 * arrives before it starts shares. So however many requests come, at most one check runs and one
 * more waits; a request that waits in vain is answered 503 with {@code Retry-After}.
 *
 * <p>The checks are routine ones (see {@link Reconciliation}), but for one in every {@code
 * full-interval} (1 h; {@code 0}: only on demand) and those a request asks to be full: such a
 * request is answered the latest full check's report while it ended at most {@code full-max-age}
 * ago (60 s), else that of the next check, made full.
 */
@Component
class ReconciliationChecks implements SmartLifecycle, DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(ReconciliationChecks.class);

  /** A check's report and when it began ({@link System#nanoTime()}), and how long it took. */
  record Checked(ReconciliationReport report, long startedAt, Duration took) {

    long endedAt() {
      return startedAt + took.toNanos();
    }

    boolean full() {
      return ReconciliationReport.FULL.equals(report.gate().scope());
    }
  }

  private final Reconciliation reconciliation;
  private final Duration interval;
  private final Duration maxAge;
  private final Duration requestWait;
  private final Duration fullInterval;
  private final Duration fullMaxAge;
  private final ScheduledExecutorService executor =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("reconciliation"));
  private final AtomicLong made = new AtomicLong();
  private volatile Checked latest;
  private volatile Checked latestFull;

  /**
   * The next check, asked for but not begun yet, and whether it is to be full (guarded by this).
   */
  private CompletableFuture<Checked> next;

  private boolean nextFull;

  private ScheduledFuture<?> schedule;

  ReconciliationChecks(
      Reconciliation reconciliation,
      @Value("${stockade.reconciliation.interval:30s}") Duration interval,
      @Value("${stockade.reconciliation.max-age:5s}") Duration maxAge,
      @Value("${stockade.reconciliation.request-wait:10s}") Duration requestWait,
      @Value("${stockade.reconciliation.full-interval:1h}") Duration fullInterval,
      @Value("${stockade.reconciliation.full-max-age:60s}") Duration fullMaxAge) {
    this.reconciliation = reconciliation;
    this.interval = interval;
    this.maxAge = maxAge;
    this.requestWait = requestWait;
    this.fullInterval = fullInterval;
    this.fullMaxAge = fullMaxAge;
  }

  /**
   * The latest report if it began at most {@code max-age} ago, else the next check's.
   *
   * @throws ProblemException 503 {@code reconciliation-running} when the next check has not ended
   *     within {@code request-wait}
   */
  ReconciliationReport report() {
    return report(false, false);
  }

  /**
   * As {@link #report()}; {@code fresh}: the report of a check that begins after this call, however
   * young the latest; {@code full}: of a full check (the latest, while it ended at most {@code
   * full-max-age} ago).
   */
  ReconciliationReport report(boolean fresh, boolean full) {
    Checked last = full ? latestFull : latest;
    if (!fresh && last != null) {
      long age = System.nanoTime() - (full ? last.endedAt() : last.startedAt());
      if (age <= (full ? fullMaxAge : maxAge).toNanos()) {
        return last.report();
      }
    }
    CompletableFuture<Checked> check = next(full);
    try {
      return check.get(requestWait.toMillis(), TimeUnit.MILLISECONDS).report();
    } catch (TimeoutException e) {
      Checked before = full && latestFull != null ? latestFull : latest;
      long retryAfter = before == null ? 1 : Math.max(1, (before.took().toMillis() + 999) / 1000);
      throw ProblemException.unavailable(
          QueryProblems.RECONCILIATION_RUNNING,
          "A reconciliation check is running and has not ended within "
              + requestWait
              + "; its report is served once it ends.",
          retryAfter);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ProblemException.unavailable(
          QueryProblems.RECONCILIATION_RUNNING,
          "The service is stopping; retry on another instance.",
          1);
    }
  }

  /** The next check to begin: one already asked for, or a new one; made full if {@code full}. */
  synchronized CompletableFuture<Checked> next(boolean full) {
    nextFull |= full;
    if (next == null) {
      CompletableFuture<Checked> check = new CompletableFuture<>();
      next = check;
      made.incrementAndGet();
      try {
        executor.execute(() -> run(check));
      } catch (RejectedExecutionException stopping) {
        next = null;
        check.completeExceptionally(
            ProblemException.unavailable(
                QueryProblems.RECONCILIATION_RUNNING,
                "The service is stopping; retry on another instance.",
                1));
      }
    }
    return next;
  }

  private void run(CompletableFuture<Checked> check) {
    boolean full;
    synchronized (this) {
      if (next == check) {
        next = null;
      }
      full = nextFull;
      nextFull = false;
    }
    long started = System.nanoTime();
    Checked lastFull = latestFull;
    full |=
        lastFull != null
            && !fullInterval.isZero()
            && !fullInterval.isNegative()
            && started - lastFull.startedAt() >= fullInterval.toNanos();
    try {
      ReconciliationReport report = reconciliation.check(full);
      Checked checked = new Checked(report, started, Duration.ofNanos(System.nanoTime() - started));
      latest = checked;
      if (checked.full()) {
        latestFull = checked;
      }
      check.complete(checked);
      logDrifts(report);
    } catch (RuntimeException e) {
      check.completeExceptionally(e);
      log.warn("Reconciliation check failed: {}", e.toString());
    }
  }

  /** How many checks this has made (each run once, for every request that shares it). */
  long made() {
    return made.get();
  }

  private static void logDrifts(ReconciliationReport report) {
    for (ReconciliationReport.Sku sku : report.skus()) {
      if (ReconciliationReport.DRIFT.equals(sku.status())) {
        ReconciliationReport.Difference difference = sku.difference();
        log.warn(
            "Reconciliation: SKU {} in DRIFT since {}: gate {}, events {}, read model {};"
                + " unexplained gate difference {}, read model difference {}",
            sku.skuId(),
            sku.since(),
            sku.gate(),
            sku.events(),
            sku.readModel(),
            difference.unexplained(),
            difference.readModel());
      }
    }
    ReconciliationReport.Summary summary = report.summary();
    if (summary.drift() > 0
        || summary.unknown() > 0
        || summary.reservationMismatches() == null
        || summary.reservationMismatches() > 0) {
      log.info(
          "Reconciliation: {} SKUs, {} consistent, {} in flight, {} in drift, {} unknown"
              + " (gate {}, read model {}); {} reservation mismatches",
          summary.skus(),
          summary.consistent(),
          summary.inFlight(),
          summary.drift(),
          summary.unknown(),
          report.gate().status(),
          report.readModel().status(),
          summary.reservationMismatches() == null
              ? "not compared"
              : summary.reservationMismatches());
    }
  }

  @Override
  public synchronized void start() {
    if (interval.isZero() || interval.isNegative() || schedule != null) {
      return;
    }
    // The scheduled task only asks for a check: the check runs right after it on the same thread.
    schedule =
        executor.scheduleWithFixedDelay(
            () -> next(false), interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void stop() {
    if (schedule != null) {
      schedule.cancel(false);
      schedule = null;
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return schedule != null;
  }

  @Override
  public void destroy() {
    executor.shutdownNow();
  }
}
