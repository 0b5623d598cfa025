package io.stockade.command.reservation;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.ReserveStockCommand;
import io.stockade.api.reservation.StockReserved;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.AdmissionGate;
import io.stockade.command.admission.GateEpochChangedException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
  private final EventStore events;
  private final Clock clock;

  ReservingStock(AdmissionGate gate, CommandGateway commands, EventStore events, Clock clock) {
    this.gate = gate;
    this.commands = commands;
    this.events = events;
    this.clock = clock;
  }

  /**
   * @return the gate's decision; {@code Admitted} and {@code Duplicate} have been recorded
   * @throws RecordingFailedException when the gate admitted but the event could not be stored
   */
  AdmissionDecision reserve(
      String reservationId, String userId, List<ReservationLine> lines, Duration hold) {
    Admission admission = new Admission(reservationId, userId, lines, hold, clock.instant());
    try {
      return reserve(admission);
    } catch (GateEpochChangedException rebuilt) {
      return new AdmissionDecision.Unavailable(rebuilt.getMessage());
    }
  }

  private AdmissionDecision reserve(Admission admission) {
    String reservationId = admission.reservationId();
    AdmissionDecision decision = gate.reserve(admission);
    if (decision instanceof AdmissionDecision.Admitted admitted) {
      boolean recorded =
          record(
              admission,
              admitted.sequence(),
              admitted.admittedAt(),
              admitted.expiresAt(),
              admitted.gateEpoch());
      if (recorded || recordedByARetry(reservationId, admitted)) {
        // Stored: by this request, or by a retry of it that got there first (the gate answered
        // the retry Duplicate, and it recorded the same admission).
        gate.recorded(reservationId);
      } else {
        // The gate forgot this id (its intent outlived the retention) but the record has it: the
        // id is being reused. The units just taken stay taken (never sell on a doubt) until the
        // gate is reconciled with the record.
        log.warn(
            "Reservation id {} was admitted again after the gate forgot it; refused as reused",
            reservationId);
        return new AdmissionDecision.Reused();
      }
    } else if (decision instanceof AdmissionDecision.Duplicate duplicate
        && "RESERVED".equals(duplicate.state())) {
      // The first attempt may have crashed between gate and event: recording again heals it.
      // A confirmed or released intent only ever follows a recorded event: nothing to record.
      if (record(
          admission,
          duplicate.sequence(),
          duplicate.admittedAt(),
          duplicate.expiresAt(),
          duplicate.gateEpoch())) {
        gate.recorded(reservationId);
      }
      // Otherwise the stream existed: recorded before (and taken off the pending list then), or
      // abandoned by the sweeper, which must still find it pending to give the units back.
    }
    return decision;
  }

  /** Whether the reservation's stream begins with this very admission. */
  private boolean recordedByARetry(String reservationId, AdmissionDecision.Admitted admitted) {
    DomainEventStream stream = events.readEvents(reservationId);
    if (!stream.hasNext()) {
      return false;
    }
    Object first = stream.next().getPayload();
    return first instanceof StockReserved reserved
        && reserved.admissionSequence() == admitted.sequence()
        && reserved.gateEpoch() == admitted.gateEpoch();
  }

  /** Records the reservation; false when its event stream already existed. */
  private boolean record(
      Admission admission, long sequence, Instant admittedAt, Instant expiresAt, long gateEpoch) {
    ReserveStockCommand command =
        new ReserveStockCommand(
            admission.reservationId(),
            admission.userId(),
            admission.lines(),
            admittedAt,
            expiresAt,
            sequence,
            gateEpoch);
    try {
      commands.sendAndWait(command);
      return true;
    } catch (GateEpochChangedException rebuilt) {
      // Admitted by a gate that has since been closed for a rebuild: the rebuild counts only what
      // the record holds, so nothing of this admission is left to give back.
      log.info("Reservation {} not recorded: {}", admission.reservationId(), rebuilt.getMessage());
      throw rebuilt;
    } catch (AggregateStreamCreationException alreadyRecorded) {
      log.debug("Reservation {} was already recorded", admission.reservationId());
      return false;
    } catch (RuntimeException e) {
      log.error(
          "Reservation {} was admitted by the gate (sequence {}) but could not be recorded",
          admission.reservationId(),
          sequence,
          e);
      throw new RecordingFailedException(admission.reservationId(), e);
    }
  }
}
