package io.stockade.command.reservation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.api.reservation.AbandonReservationCommand;
import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.StockReserved;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.admission.PendingAdmissions;
import io.stockade.command.admission.PendingAdmissions.Intent;
import io.stockade.command.admission.PendingAdmissions.Pending;
import io.stockade.command.admission.ReservationTransitions;
import io.stockade.command.admission.ReservationTransitions.Transition;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.modelling.command.AggregateStreamCreationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The recovery sweeper for "gate yes, event no": a reservation the gate admitted whose event was
 * not stored within a bound (a crash, a failed database) holds units that nobody sold.
 *
 * <p>The database decides between the sweeper and a request that records the reservation late: the
 * sweeper creates the reservation's stream with {@link ReservationAbandoned}, which fails if {@code
 * StockReserved} got there first, and makes any later {@code StockReserved} fail. Only once its
 * tombstone is stored does it give the units back in the gate. Safe with several instances: each
 * step is idempotent and the stream can be created once.
 */
@Component
@ConditionalOnProperty(
    name = "stockade.recovery.enabled",
    havingValue = "true",
    matchIfMissing = true)
class RecoveringUnrecordedAdmissions {

  private static final Logger log = LoggerFactory.getLogger(RecoveringUnrecordedAdmissions.class);
  private static final int BATCH = 200;

  private final ReservationTransitions transitions;
  private final PendingAdmissions pendingAdmissions;
  private final CommandGateway commands;
  private final ReservationRecord stored;
  private final Clock clock;
  private final Duration bound;
  private final Counter repairs;

  RecoveringUnrecordedAdmissions(
      ReservationTransitions transitions,
      PendingAdmissions pendingAdmissions,
      CommandGateway commands,
      ReservationRecord stored,
      Clock clock,
      MeterRegistry meters,
      @Value("${stockade.recovery.unrecorded-after:10s}") Duration bound) {
    this.transitions = transitions;
    this.pendingAdmissions = pendingAdmissions;
    this.commands = commands;
    this.stored = stored;
    this.clock = clock;
    this.bound = bound;
    this.repairs =
        Counter.builder("stockade.recovery.repairs")
            .description(
                "Half-done changes repaired by the recovery sweepers: admissions never recorded"
                    + " whose units were given back, adjustment takes recorded late")
            .tag("kind", "unrecorded-admission")
            .register(meters);
  }

  @Scheduled(fixedDelayString = "${stockade.recovery.interval:5s}")
  void sweep() {
    try {
      // Aged by the clock of the Redis that admitted them, not this instance's: an instance whose
      // clock runs ahead would otherwise give up admissions others are still recording.
      for (Pending pending : pendingAdmissions.pendingFor(bound, BATCH)) {
        recover(pending);
      }
      int settled = pendingAdmissions.settleTransfers(bound);
      if (settled > 0) {
        repairs.increment(settled);
        log.warn("{} moves of units between buckets were left halfway; finished", settled);
      }
    } catch (RuntimeException e) {
      log.warn("Recovery sweep stopped early; the next one goes on", e);
    }
  }

  /**
   * Settles one pending admission: the part of a reservation in one partition of the gate. A
   * reservation whose SKUs lie in several partitions is settled part by part; the first part's
   * tombstone decides for all of them.
   */
  private void recover(Pending pending) {
    String reservationId = pending.reservationId();
    Optional<Intent> intent = pendingAdmissions.intent(pending);
    if (intent.isEmpty()) {
      // Forgotten: nothing of it is held. (Should an admission of the id arrive meanwhile, its
      // entry stays.)
      pendingAdmissions.recorded(pending, AdmissionId.NONE);
      return;
    }
    Intent held = intent.get();
    AdmissionId admission = held.admission();
    if (!"RESERVED".equals(held.state())) {
      // Ended (its events exist): nothing of it is held unrecorded.
      pendingAdmissions.recorded(pending, admission);
      return;
    }
    Optional<Object> first = stored.first(reservationId);
    Optional<StockReserved> reserved = first.flatMap(ReservationRecord::reservedIn);
    if (reserved.isPresent()
        && admission.is(reserved.get().admissionSequence(), reserved.get().gateEpoch())) {
      pendingAdmissions.recorded(pending, admission);
      return;
    }
    // Unless the stream is still empty, it begins with a tombstone or with another admission of
    // this id (reused by another user, or after the gate forgot the first): either way this
    // admission can never be stored. Only this admission is released: the other one, recorded,
    // keeps its units.
    if (first.isEmpty()) {
      try {
        commands.sendAndWait(
            new AbandonReservationCommand(
                reservationId, held.userId(), held.lines(), admission.sequence(), clock.instant()));
      } catch (AggregateStreamCreationException recordedMeanwhile) {
        return; // The next sweep finds out which event won.
      }
    }
    if (transitions.release(reservationId, admission, held.lines(), ReservationAbandoned.REASON)
        != Transition.UNAVAILABLE) {
      pendingAdmissions.recorded(pending, admission);
      repairs.increment();
      log.warn(
          "Reservation {} was admitted by the gate (sequence {}) but never recorded; its units are"
              + " back",
          reservationId,
          admission.sequence());
    }
  }
}
