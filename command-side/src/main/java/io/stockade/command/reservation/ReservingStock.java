package io.stockade.command.reservation;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.ReserveStockCommand;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.admission.GateEpochChangedException;
import io.stockade.command.admission.PendingAdmissions;
import io.stockade.command.admission.ReservationTransitions;
import io.stockade.command.admission.ReservationTransitions.Withdrawal;
import io.stockade.command.admission.Reserving;
import io.stockade.command.admission.TokenBucket;
import io.stockade.command.draw.DrawQueue;
import io.stockade.command.draw.QueueingReservations;
import io.stockade.command.reservation.StoringReservations.StoringFailedException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Reserves stock: the gate decides first, then the decision is recorded as an event. A crash
 * between the two leaves units taken with no event, which errs towards not selling.
 */
@Component
class ReservingStock {

  private static final Logger log = LoggerFactory.getLogger(ReservingStock.class);

  /** The gate's state of an admission given back: released by its holder, or by the sweeper. */
  private static final String RELEASED = "RELEASED";

  private final Reserving reserving;
  private final ReservationTransitions transitions;
  private final PendingAdmissions pending;
  private final StoringReservations storing;
  private final ReservationRecord stored;
  private final Clock clock;
  private final AdmissionMetrics metrics;
  private final DrawQueue queue;
  private final QueueingReservations queueing;

  ReservingStock(
      Reserving reserving,
      ReservationTransitions transitions,
      PendingAdmissions pending,
      StoringReservations storing,
      ReservationRecord stored,
      Clock clock,
      AdmissionMetrics metrics,
      DrawQueue queue,
      QueueingReservations queueing) {
    this.queue = queue;
    this.queueing = queueing;
    this.reserving = reserving;
    this.transitions = transitions;
    this.pending = pending;
    this.storing = storing;
    this.stored = stored;
    this.clock = clock;
    this.metrics = metrics;
  }

  /**
   * @param buckets the request's rate limits, for the gate to take in the same step
   * @return the gate's decision; {@code Admitted} and {@code Duplicate} have been recorded
   * @throws RecordingFailedException when the gate admitted but the event could not be stored
   */
  AdmissionDecision reserve(
      String reservationId,
      String userId,
      List<ReservationLine> lines,
      Duration hold,
      List<TokenBucket> buckets) {
    Admission admission =
        new Admission(reservationId, userId, lines, hold, clock.instant(), buckets);
    AdmissionDecision decision;
    try {
      decision = reserve(admission);
    } catch (GateEpochChangedException rebuilt) {
      decision = new AdmissionDecision.Unavailable(rebuilt.getMessage());
    } catch (RecordingFailedException e) {
      metrics.recordingFailed();
      throw e;
    }
    metrics.decided(decision);
    return decision;
  }

  private AdmissionDecision reserve(Admission admission) {
    String reservationId = admission.reservationId();
    AdmissionDecision decision = metrics.timeGate(() -> reserving.reserve(admission));
    if (decision instanceof AdmissionDecision.Admitted admitted) {
      boolean recorded =
          record(
              admission,
              admitted.sequence(),
              admitted.admittedAt(),
              admitted.expiresAt(),
              admitted.gateEpoch());
      if (recorded || startsWith(reservationId, admitted.admission())) {
        // Stored: by this request, or by a retry of it that got there first (the gate answered
        // the retry Duplicate, and it recorded the same admission).
        pending.recorded(reservationId, admitted.admission(), admission.lines());
      } else {
        // The record holds another admission of this id (the id reused by another user, whose
        // admission lies in another bucket, or admitted anew after the gate forgot the first), or
        // the sweeper's tombstone: nothing of this admission was stored; its units go back, and
        // only its own.
        boolean abandoned = abandoned(reservationId);
        log.warn(
            "Reservation id {} was admitted again while the record holds {}; refused ({})",
            reservationId,
            abandoned ? "its tombstone" : "another admission of it",
            transitions.withdraw(reservationId, admitted.admission(), admission.lines()));
        return abandoned ? new AdmissionDecision.Abandoned() : new AdmissionDecision.Reused();
      }
    } else if (decision instanceof AdmissionDecision.Duplicate duplicate && duplicate.recording()) {
      // Reserved and not known to be stored: the first attempt may have crashed between gate and
      // event, or still be at work; recording again heals the former, and the record lets only
      // one of them store it.
      if (record(
              admission,
              duplicate.sequence(),
              duplicate.admittedAt(),
              duplicate.expiresAt(),
              duplicate.gateEpoch())
          || startsWith(reservationId, duplicate.admission())) {
        pending.recorded(reservationId, duplicate.admission(), admission.lines());
      } else if (abandoned(reservationId)) {
        // The stream begins with the sweeper's tombstone: the sweeper, which must still find the
        // admission pending, gives its units back; nothing is held under the id.
        return new AdmissionDecision.Abandoned();
      }
    } else if (decision instanceof AdmissionDecision.Queued queued) {
      return queue(admission, queued);
    } else if (decision instanceof AdmissionDecision.Duplicate duplicate
        && RELEASED.equals(duplicate.state())
        && abandoned(reservationId)) {
      // The gate remembers the admission the sweeper gave back: a retry of a request answered 503
      // whose reservation was never recorded. Nothing is held under the id.
      return new AdmissionDecision.Abandoned();
    }
    return decision;
  }

  /**
   * Queues a reservation the gate found in its pre-queue: recorded (its {@code ReservationQueued})
   * before the 202.
   */
  private AdmissionDecision queue(Admission admission, AdmissionDecision.Queued queued) {
    DrawQueue.Enqueued enqueued;
    try {
      enqueued =
          queueing.enqueue(
              admission.reservationId(),
              admission.userId(),
              admission.lines(),
              admission.hold(),
              admission.fingerprint(),
              queued.opensAt(),
              admission.now());
    } catch (QueueingReservations.QueueingFailedException e) {
      log.warn("Reservation {} could not be queued", admission.reservationId(), e);
      throw new RecordingFailedException(admission.reservationId(), e);
    }
    return switch (enqueued) {
      case QUEUED ->
          new AdmissionDecision.Queued(
              queued.opensAt(), queued.now(), queue.commitment(queued.opensAt()));
      case REUSED -> new AdmissionDecision.Reused();
      case DRAW_STARTED ->
          new AdmissionDecision.DrawInProgress(
              admission.lines().get(0).skuId(), 0, queued.opensAt());
    };
  }

  /** Whether the reservation's stream begins with the sweeper's tombstone. */
  private boolean abandoned(String reservationId) {
    return stored
        .first(reservationId)
        .map(first -> ReservationRecord.reservedIn(first).isEmpty())
        .orElse(false);
  }

  /** Whether the reservation's stream begins with that admission. */
  private boolean startsWith(String reservationId, AdmissionId admitted) {
    return stored.admission(reservationId).filter(admitted::equals).isPresent();
  }

  /**
   * Records the reservation; false when its event stream already existed. When storing fails before
   * its transaction could commit, the admission is withdrawn from the gate at once (unless a
   * concurrent retry may still store it); when the commit may have happened, the recovery sweeper
   * settles it through the record.
   */
  private boolean record(
      Admission admission, long sequence, Instant admittedAt, Instant expiresAt, long gateEpoch) {
    ReserveStockCommand command =
        StoringReservations.command(
            admission, new AdmissionId(sequence, gateEpoch), admittedAt, expiresAt);
    try {
      return storing.store(command);
    } catch (GateEpochChangedException rebuilt) {
      // Admitted by a gate since closed for a rebuild, which counts only what the record holds;
      // refused before anything was stored.
      transitions.withdraw(
          admission.reservationId(), new AdmissionId(sequence, gateEpoch), admission.lines());
      log.info("Reservation {} not recorded: {}", admission.reservationId(), rebuilt.getMessage());
      reserving.fenced(gateEpoch);
      throw rebuilt;
    } catch (StoringFailedException e) {
      Withdrawal withdrawal =
          e.mayHaveCommitted()
              ? null
              : transitions.withdraw(
                  admission.reservationId(),
                  new AdmissionId(sequence, gateEpoch),
                  admission.lines());
      log.error(
          "Reservation {} was admitted by the gate (sequence {}) but could not be recorded; {}",
          admission.reservationId(),
          sequence,
          e.mayHaveCommitted()
              ? "its commit may have happened: the recovery sweeper settles it"
              : "nothing was stored; withdrawn from the gate: " + withdrawal,
          e.getCause());
      throw new RecordingFailedException(admission.reservationId(), e.getCause());
    }
  }
}
