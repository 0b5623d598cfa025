package io.stockade.query.reconciliation;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The reconciliation on a schedule: a check every {@code stockade.reconciliation.interval} (30 s;
 * {@code 0} switches it off), a WARN line per SKU in DRIFT. The metrics follow every check.
 */
@Component
class ReconciliationSchedule implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(ReconciliationSchedule.class);

  private final Reconciliation reconciliation;
  private final Duration interval;
  private ScheduledExecutorService executor;

  ReconciliationSchedule(
      Reconciliation reconciliation,
      @Value("${stockade.reconciliation.interval:30s}") Duration interval) {
    this.reconciliation = reconciliation;
    this.interval = interval;
  }

  void run() {
    try {
      ReconciliationReport report = reconciliation.check();
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
      if (report.summary().drift() > 0 || report.summary().reservationMismatches() > 0) {
        log.info(
            "Reconciliation: {} SKUs, {} consistent, {} in flight, {} in drift;"
                + " {} reservation mismatches",
            report.summary().skus(),
            report.summary().consistent(),
            report.summary().inFlight(),
            report.summary().drift(),
            report.summary().reservationMismatches());
      }
    } catch (RuntimeException e) {
      log.warn("Reconciliation check failed", e);
    }
  }

  @Override
  public synchronized void start() {
    if (interval.isZero() || interval.isNegative() || executor != null) {
      return;
    }
    executor =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "reconciliation");
              thread.setDaemon(true);
              return thread;
            });
    executor.scheduleWithFixedDelay(
        this::run, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void stop() {
    if (executor != null) {
      executor.shutdownNow();
      executor = null;
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return executor != null;
  }
}
