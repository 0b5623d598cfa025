package io.stockade.command.reservation;

import io.stockade.api.draw.DrawSeed;
import io.stockade.api.sku.DecideDrawCommand;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.PendingAdmissions;
import io.stockade.command.admission.Reserving;
import io.stockade.command.admission.SaleControl;
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
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
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
  private final Reserving reserving;
  private final PendingAdmissions pending;
  private final SaleControl sale;
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

  /** Records the batches of a draw, one at a time, while the gate decides the next. */
  private final ExecutorService recorder =
      Executors.newSingleThreadExecutor(DaemonThreads.named("draw-recorder"));

  /**
   * Run between the gate's decisions of a batch and their recording: the tests' crash point (an
   * instance dying there leaves decisions the gate made and the record does not hold yet).
   */
  volatile Runnable afterGateDecided = () -> {};

  Drawing(
      DrawQueue queue,
      Reserving reserving,
      PendingAdmissions pending,
      SaleControl sale,
      StoringReservations storing,
      CommandGateway commands,
      Clock clock,
      @Value("${stockade.draw.enabled:true}") boolean enabled,
      @Value("${stockade.draw.interval:100ms}") Duration interval,
      @Value("${stockade.draw.lease:5s}") Duration lease,
      @Value("${stockade.draw.batch:1000}") int batch) {
    this.queue = queue;
    this.reserving = reserving;
    this.pending = pending;
    this.sale = sale;
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
    recorder.shutdownNow();
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

  /**
   * Decides the draw at {@code opensAt} as far as this instance can; true once decided. The gate
   * decides a batch while the batch before it is recorded (one recording at a time, in order, so
   * that the record always holds a prefix of the draw order: a draw resumed goes on after it).
   */
  boolean draw(Instant opensAt) {
    if (!renew(opensAt)) {
      return false;
    }
    long began = System.nanoTime();
    long[] spent = new long[3]; // deciding, reading the queue, waiting for the records
    long first = queue.decidedCount(opensAt);
    long position = first;
    List<Queued> next = queue.undecided(opensAt, batch);
    CompletableFuture<Boolean> recording = CompletableFuture.completedFuture(true);
    try {
      while (!next.isEmpty()) {
        long step = System.nanoTime();
        Batch decided;
        try {
          decided = decide(next, position);
          spent[0] += System.nanoTime() - step;
        } catch (DrawOutcome.LeaveDraw leave) {
          backOff.put(opensAt, clock.instant().plusSeconds(30));
          recorded(recording);
          queue.lease(opensAt, drawer, clock.instant(), clock.instant());
          return false;
        }
        position += decided.drawn().size();
        boolean whole = decided.drawn().size() == next.size();
        step = System.nanoTime();
        List<Queued> following = whole ? queue.after(next.get(next.size() - 1), batch) : List.of();
        spent[1] += System.nanoTime() - step;
        step = System.nanoTime();
        if (!recorded(recording)) {
          return false;
        }
        spent[2] += System.nanoTime() - step;
        recording = CompletableFuture.supplyAsync(() -> record(opensAt, decided), recorder);
        if (!whole) {
          // Stopped short (the gate not yet at the opening, or closed): the next poll goes on.
          recorded(recording);
          return false;
        }
        next = following;
      }
      long step = System.nanoTime();
      if (!recorded(recording)) {
        return false;
      }
      spent[2] += System.nanoTime() - step;
      // Where the draw's time went, for whoever makes it faster (performance.md).
      log.info(
          "Draw {} recorded from position {} in {} ms: deciding {} ms, reading the queue {} ms,"
              + " waiting for the records {} ms",
          opensAt,
          first,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began),
          TimeUnit.NANOSECONDS.toMillis(spent[0]),
          TimeUnit.NANOSECONDS.toMillis(spent[1]),
          TimeUnit.NANOSECONDS.toMillis(spent[2]));
    } finally {
      // Nothing of this draw is left running when it returns or fails.
      recording.exceptionally(failed -> false).join();
    }
    finish(opensAt);
    return true;
  }

  /** The outcome of a batch's recording: false when the lease was lost; its failure thrown. */
  private static boolean recorded(CompletableFuture<Boolean> recording) {
    try {
      return recording.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException failed) {
        throw failed;
      }
      throw e;
    }
  }

  /** A batch the gate decided: the decisions to record, and the admissions' storing. */
  private record Batch(
      List<Drawn> drawn, List<CompletableFuture<Boolean>> stored, List<Runnable> recordedInGate) {}

  /**
   * Records a batch: its admissions stored (and marked recorded in the gate), then its decisions;
   * answers whether this instance still holds the lease.
   */
  private boolean record(Instant opensAt, Batch decided) {
    for (CompletableFuture<Boolean> future : decided.stored()) {
      storing.await(future);
    }
    decided.recordedInGate().forEach(Runnable::run);
    queue.decided(decided.drawn());
    return renew(opensAt);
  }

  /**
   * Decides the reservations in order, until the first the gate cannot decide now; the admitted
   * ones are submitted for storing.
   */
  private Batch decide(List<Queued> next, long first) {
    List<Drawn> decided = new ArrayList<>(next.size());
    List<Runnable> recordedInGate = new ArrayList<>();
    List<CompletableFuture<Boolean>> stored = new ArrayList<>();
    long position = first;
    List<Admission> admissions = new ArrayList<>(next.size());
    Instant now = clock.instant();
    for (Queued queued : next) {
      admissions.add(
          new Admission(
              queued.reservationId(), queued.userId(), queued.lines(), queued.hold(), now));
    }
    List<AdmissionDecision> decisions = reserving.draw(admissions);
    afterGateDecided.run();
    for (int i = 0; i < decisions.size(); i++) {
      DrawOutcome outcome =
          decisions.get(i).accept(new DrawOutcome.Reading(admissions.get(i), storing));
      if (outcome == null) {
        break;
      }
      if (outcome.stored() != null) {
        stored.add(outcome.stored());
        Admission admission = admissions.get(i);
        recordedInGate.add(
            () ->
                pending.recorded(
                    admission.reservationId(), outcome.admission(), admission.lines()));
      }
      decided.add(
          new Drawn(
              next.get(i), position++, outcome.outcome(), outcome.skuId(), outcome.refusal()));
    }
    return new Batch(decided, stored, recordedInGate);
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
        sale.drawn(skuId, version, opensAt);
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
