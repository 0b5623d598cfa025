package io.stockade.command.reservation;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.ReserveStockCommand;
import io.stockade.api.reservation.StockReserved;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.AdmissionGate;
import io.stockade.command.admission.AdmissionGate.Withdrawal;
import io.stockade.command.admission.GateEpochChangedException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.modelling.command.AggregateStreamCreationException;
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

  private final AdmissionGate gate;
  private final CommandGateway commands;
  private final CommitAttempts attempts;
  private final EventStore events;
  private final Clock clock;
  private final AdmissionMetrics metrics;

  ReservingStock(
      AdmissionGate gate,
      CommandGateway commands,
      CommitAttempts attempts,
      EventStore events,
      Clock clock,
      AdmissionMetrics metrics) {
    this.gate = gate;
    this.commands = commands;
    this.attempts = attempts;
    this.events = events;
    this.clock = clock;
    this.metrics = metrics;
  }

  /**
   * @return the gate's decision; {@code Admitted} and {@code Duplicate} have been recorded
   * @throws RecordingFailedException when the gate admitted but the event could not be stored
   */
  AdmissionDecision reserve(
      String reservationId, String userId, List<ReservationLine> lines, Duration hold) {
    Admission admission = new Admission(reservationId, userId, lines, hold, clock.instant());
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
    AdmissionDecision decision = metrics.timeGate(() -> gate.reserve(admission));
    if (decision instanceof AdmissionDecision.Admitted admitted) {
      boolean recorded =
          record(
              admission,
              admitted.sequence(),
              admitted.admittedAt(),
              admitted.expiresAt(),
              admitted.gateEpoch());
      if (recorded || startsWith(reservationId, admitted.sequence(), admitted.gateEpoch())) {
        // Stored: by this request, or by a retry of it that got there first (the gate answered
        // the retry Duplicate, and it recorded the same admission).
        gate.recorded(reservationId, admission.lines());
      } else {
        // The record holds another admission of this id (the gate forgot it after the retention):
        // the id is being reused. Nothing of this admission was stored: its units go back.
        log.warn(
            "Reservation id {} was admitted again after the gate forgot it; refused as reused ({})",
            reservationId,
            gate.withdraw(reservationId, admitted.sequence(), admission.lines()));
        return new AdmissionDecision.Reused();
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
          || startsWith(reservationId, duplicate.sequence(), duplicate.gateEpoch())) {
        gate.recorded(reservationId, admission.lines());
      }
      // Otherwise the stream begins with the sweeper's tombstone: the sweeper, which must still
      // find the admission pending, gives its units back.
    }
    return decision;
  }

  /** Whether the reservation's stream begins with the admission of that sequence and epoch. */
  private boolean startsWith(String reservationId, long sequence, long gateEpoch) {
    DomainEventStream stream = events.readEvents(ReservationEvent.streamId(reservationId));
    if (!stream.hasNext()) {
      return false;
    }
    Object first = stream.next().getPayload();
    return first instanceof StockReserved reserved
        && reserved.admissionSequence() == sequence
        && reserved.gateEpoch() == gateEpoch;
  }

  /**
   * Records the reservation; false when its event stream already existed. When storing fails before
   * its transaction could commit, the admission is withdrawn from the gate at once (unless a
   * concurrent retry may still store it); when the commit may have happened, the recovery sweeper
   * settles it through the record.
   */
  private boolean record(
      Admission admission, long sequence, Instant admittedAt, Instant expiresAt, long gateEpoch) {
    CommandMessage<ReserveStockCommand> command =
        GenericCommandMessage.asCommandMessage(
            new ReserveStockCommand(
                admission.reservationId(),
                admission.userId(),
                admission.lines(),
                admittedAt,
                expiresAt,
                sequence,
                gateEpoch));
    try {
      commands.sendAndWait(command);
      attempts.mayHaveCommitted(command.getIdentifier());
      return true;
    } catch (AggregateStreamCreationException alreadyRecorded) {
      attempts.mayHaveCommitted(command.getIdentifier());
      log.debug("Reservation {} was already recorded", admission.reservationId());
      return false;
    } catch (RuntimeException e) {
      boolean mayHaveCommitted = attempts.mayHaveCommitted(command.getIdentifier());
      Withdrawal withdrawal =
          mayHaveCommitted
              ? null
              : gate.withdraw(admission.reservationId(), sequence, admission.lines());
      if (e instanceof GateEpochChangedException rebuilt) {
        // Admitted by a gate since closed for a rebuild, which counts only what the record holds.
        log.info("Reservation {} not recorded: {}", admission.reservationId(), e.getMessage());
        gate.fenced(gateEpoch);
        throw rebuilt;
      }
      log.error(
          "Reservation {} was admitted by the gate (sequence {}) but could not be recorded; {}",
          admission.reservationId(),
          sequence,
          mayHaveCommitted
              ? "its commit may have happened: the recovery sweeper settles it"
              : "nothing was stored; withdrawn from the gate: " + withdrawal,
          e);
      throw new RecordingFailedException(admission.reservationId(), e);
    }
  }
}
