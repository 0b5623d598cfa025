package io.stockade.command.reservation;

import io.stockade.api.draw.DrawSeed;
import io.stockade.api.draw.ReservationDrawn;
import io.stockade.api.reservation.ReserveStockCommand;
import io.stockade.api.sku.DecideDrawCommand;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.AdmissionGate;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.draw.DrawQueue;
import io.stockade.command.draw.DrawQueue.Drawn;
import io.stockade.command.draw.DrawQueue.Queued;
import io.stockade.platform.concurrent.DaemonThreads;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The pre-queue's draw (api.md 1.2, "Fair start"): from its opening, one instance at a time (a
 * lease in the record) decides the queued reservations in the draw order, each through the gate as
 * a reservation arriving then, and records each decision; then every SKU of the draw is told it is
 * decided ({@code DrawDecided}, which reveals the seed and lets the reservations that arrived after
 * the opening in).
 *
 * <p>Exactly once, whatever fails: the gate keeps each decision (an admission's intent, a refusal
 * kept in the intent record), so a decision asked again (this instance after a failure, or another
 * after this one died) is answered with the first; the record keeps which are recorded (each row's
 * outcome, written with its {@code ReservationDrawn}), so a draw resumed goes on from the first
 * reservation not recorded. Admissions are stored as every admission is ({@code StockReserved}
 * through {@link StoringReservations}, many to a transaction) before their decisions are marked.
 */
@Component
class Drawing {

  private static final Logger log = LoggerFactory.getLogger(Drawing.class);

  private final DrawQueue queue;
  private final AdmissionGate gate;
  private final StoringReservations storing;
  private final CommandGateway commands;
  private final Clock clock;
  private final boolean enabled;
  private final Duration interval;
  private final Duration lease;
  private final int batch;
  private final String drawer = "drawer-" + UUID.randomUUID();
  private final Map<Instant, Instant> backOff = new HashMap<>();
  private ScheduledExecutorService poller;

  Drawing(
      DrawQueue queue,
      AdmissionGate gate,
      StoringReservations storing,
      CommandGateway commands,
      Clock clock,
      @Value("${stockade.draw.enabled:true}") boolean enabled,
      @Value("${stockade.draw.interval:100ms}") Duration interval,
      @Value("${stockade.draw.lease:10s}") Duration lease,
      @Value("${stockade.draw.batch:1000}") int batch) {
    this.queue = queue;
    this.gate = gate;
    this.storing = storing;
    this.commands = commands;
    this.clock = clock;
    this.enabled = enabled;
    this.interval = interval;
    this.lease = lease;
    this.batch = batch;
  }

  @PostConstruct
  void start() {
    if (enabled) {
      poller = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("draw"));
      poller.scheduleWithFixedDelay(
          this::drawDue, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  @PreDestroy
  void stop() {
    if (poller != null) {
      poller.shutdownNow();
    }
  }

  /** Draws every draw that is due and not decided, if this instance gets its lease. */
  synchronized void drawDue() {
    try {
      Instant now = clock.instant();
      for (Instant opensAt : queue.due(now)) {
        Instant until = backOff.get(opensAt);
        if (until != null && now.isBefore(until)) {
          continue;
        }
        backOff.remove(opensAt);
        draw(opensAt);
      }
    } catch (RuntimeException e) {
      // The database or the gate failed: the next poll goes on where the record says.
      log.warn("Draw interrupted; resumed at the next poll: {}", e.toString());
    }
  }

  /** Decides the draw at {@code opensAt} as far as this instance can; true once decided. */
  boolean draw(Instant opensAt) {
    if (!renew(opensAt)) {
      return false;
    }
    long position = queue.decidedCount(opensAt);
    while (true) {
      List<Queued> next = queue.undecided(opensAt, batch);
      if (next.isEmpty()) {
        break;
      }
      List<Drawn> decided = decide(opensAt, next, position);
      queue.decided(decided);
      position += decided.size();
      if (decided.size() < next.size() || !renew(opensAt)) {
        // Stopped short (the gate not yet at the opening, or closed): the next poll goes on.
        return false;
      }
    }
    finish(opensAt);
    return true;
  }

  /**
   * Decides the reservations in order, until the first the gate cannot decide now; stores the
   * admitted ones and answers the decisions to record, in order.
   */
  private List<Drawn> decide(Instant opensAt, List<Queued> next, long first) {
    List<Drawn> decided = new ArrayList<>(next.size());
    List<CompletableFuture<Boolean>> stored = new ArrayList<>();
    List<Runnable> recordedInGate = new ArrayList<>();
    long position = first;
    for (Queued queued : next) {
      Admission admission =
          new Admission(
              queued.reservationId(),
              queued.userId(),
              queued.lines(),
              queued.hold(),
              clock.instant());
      AdmissionDecision decision = gate.draw(admission);
      String outcome = null;
      String skuId = null;
      if (decision instanceof AdmissionDecision.Admitted admitted) {
        stored.add(
            store(admission, admitted.admission(), admitted.admittedAt(), admitted.expiresAt()));
        recordedInGate.add(
            () -> gate.recorded(queued.reservationId(), admitted.admission(), queued.lines()));
        outcome = ReservationDrawn.ADMITTED;
      } else if (decision instanceof AdmissionDecision.Duplicate duplicate) {
        // Decided before (this draw, interrupted): recorded again if it may not be.
        if (duplicate.recording()) {
          stored.add(
              store(
                  admission, duplicate.admission(), duplicate.admittedAt(), duplicate.expiresAt()));
          recordedInGate.add(
              () -> gate.recorded(queued.reservationId(), duplicate.admission(), queued.lines()));
        }
        outcome = ReservationDrawn.ADMITTED;
      } else if (decision instanceof AdmissionDecision.Insufficient insufficient) {
        outcome = "INSUFFICIENT_STOCK";
        skuId = insufficient.skuId();
      } else if (decision instanceof AdmissionDecision.LimitExceeded exceeded) {
        outcome = "LIMIT_EXCEEDED";
        skuId = exceeded.skuId();
      } else if (decision instanceof AdmissionDecision.SaleClosed closed) {
        outcome = "SALE_CLOSED";
        skuId = closed.skuId();
      } else if (decision instanceof AdmissionDecision.SalePaused paused) {
        outcome = "SALE_PAUSED";
        skuId = paused.skuId();
      } else if (decision instanceof AdmissionDecision.UnknownSku unknown) {
        // Only a gate other than the one the queue was made with knows no SKU of it: this instance
        // leaves the draw to others for a while.
        log.error("The gate does not know SKU {} of draw {}; leaving it", unknown.skuId(), opensAt);
        backOff.put(opensAt, clock.instant().plusSeconds(30));
        queue.lease(opensAt, drawer, clock.instant(), clock.instant());
      } else if (!(decision instanceof AdmissionDecision.Queued)) {
        // The gate not yet at the opening by its clock (Queued), closed or rebuilt: later.
        log.info("Draw {} waits: {}", opensAt, decision);
      }
      if (outcome == null) {
        break;
      }
      decided.add(new Drawn(queued.reservationId(), opensAt, position++, outcome, skuId));
    }
    // Every admission stored before any decision is marked recorded.
    for (CompletableFuture<Boolean> future : stored) {
      storing.await(future);
    }
    recordedInGate.forEach(Runnable::run);
    return decided;
  }

  private CompletableFuture<Boolean> store(
      Admission admission, AdmissionId id, Instant admittedAt, Instant expiresAt) {
    return storing.submit(
        new ReserveStockCommand(
            admission.reservationId(),
            admission.userId(),
            admission.lines(),
            admittedAt,
            expiresAt,
            id.sequence(),
            id.gateEpoch()));
  }

  /** Tells every SKU of the draw it is decided, then marks the draw decided (seed revealed). */
  private void finish(Instant opensAt) {
    DrawSeed seed = queue.seed(opensAt);
    for (String skuId : queue.skus(opensAt)) {
      long[] counts = queue.counts(opensAt, skuId);
      long version =
          commands.<Long>sendAndWait(
              new DecideDrawCommand(skuId, opensAt, seed.hex(), counts[0], counts[1]));
      if (version >= 0) {
        // The gate lets later arrivals in now; the gate follower writes it again if this fails.
        gate.drawn(skuId, version, opensAt);
      }
    }
    long[] totals = queue.totals(opensAt);
    queue.finish(opensAt, totals[0], totals[1], clock.instant());
    log.info("Draw {} decided: {} queued, {} admitted", opensAt, totals[0], totals[1]);
  }

  private boolean renew(Instant opensAt) {
    Instant now = clock.instant();
    return queue.lease(opensAt, drawer, now, now.plus(lease));
  }
}
