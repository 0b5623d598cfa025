package io.stockade.command.reservation;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import io.stockade.api.reservation.AbandonReservationCommand;
import io.stockade.api.reservation.ConfirmReservationCommand;
import io.stockade.api.reservation.ReleaseReservationCommand;
import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.ReserveStockCommand;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.command.admission.AdmissionFence;
import io.stockade.command.admission.AdmissionId;
import java.util.List;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.deadline.annotation.DeadlineHandler;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.spring.stereotype.Aggregate;

/**
 * One reservation's life: reserved, then confirmed or released (by request, or by its expiry
 * deadline when unpaid), once. It records what the admission gate decided; the gate, not this
 * aggregate, guards the stock, so reservations of one hot SKU do not contend here.
 */
@Aggregate
class Reservation {

  enum Status {
    RESERVED,
    CONFIRMED,
    RELEASED,
    /** Admitted by the gate, never recorded: see {@link ReservationAbandoned}. */
    ABANDONED
  }

  static final String EXPIRY = "reservation-expiry";

  /** The reservation's stream: {@link ReservationEvent#streamId}, never a SKU's. */
  @AggregateIdentifier private String streamId;

  private String reservationId;
  private String userId;
  private List<ReservationLine> lines;
  private AdmissionId admission;
  private Status status;

  Reservation() {}

  /**
   * What recording an admission means. The service itself stores new reservations without loading
   * an aggregate ({@link StoringReservations}, which appends this same event and keeps the expiry
   * in {@code reservation_expiry} instead of a deadline); this handler is its model, and what
   * deadlines scheduled before that change expire.
   */
  @CommandHandler
  Reservation(ReserveStockCommand command, DeadlineManager deadlines, AdmissionFence fence) {
    // Refused once the gate that admitted it has been rebuilt: its counters are not the gate's.
    fence.check(command.gateEpoch());
    apply(reserved(command));
    // After apply: the deadline's scope needs the identifier the event has just set. Persistent
    // (db-scheduler): it survives restarts and fires on whichever instance polls first.
    deadlines.schedule(command.expiresAt(), EXPIRY);
  }

  /** The event that begins a reservation's stream: also what {@link StoringReservations} stores. */
  static StockReserved reserved(ReserveStockCommand command) {
    return new StockReserved(
        command.reservationId(),
        command.userId(),
        command.lines(),
        command.reservedAt(),
        command.expiresAt(),
        command.admissionSequence(),
        command.gateEpoch());
  }

  @CommandHandler
  Reservation(AbandonReservationCommand command) {
    apply(
        new ReservationAbandoned(
            command.reservationId(),
            command.userId(),
            command.lines(),
            command.admissionSequence(),
            command.abandonedAt()));
  }

  /**
   * Confirms once; a repeat changes nothing; a released reservation cannot be confirmed.
   *
   * @return the admission the gate is to confirm, and where it holds it
   */
  @CommandHandler
  GateHold handle(ConfirmReservationCommand command) {
    if (status == Status.CONFIRMED) {
      return new GateHold(admission, lines);
    }
    if (status != Status.RESERVED) {
      throw new ReservationNotActiveException(reservationId, status);
    }
    apply(new StockConfirmed(reservationId, userId, lines, command.confirmedAt()));
    return new GateHold(admission, lines);
  }

  /**
   * Releases once; a repeat changes nothing; a confirmed reservation cannot be released.
   *
   * @return the admission the gate is to release, and where it holds it
   */
  @CommandHandler
  GateHold handle(ReleaseReservationCommand command) {
    if (status == Status.RELEASED) {
      return new GateHold(admission, lines);
    }
    if (status != Status.RESERVED) {
      throw new ReservationNotActiveException(reservationId, status);
    }
    apply(new StockReleased(reservationId, userId, lines, command.reason(), command.releasedAt()));
    return new GateHold(admission, lines);
  }

  /**
   * Unpaid when its hold passed: released with reason EXPIRED, unless it ended before. (Deadlines
   * scheduled by the handler above; the reservations stored since are expired by {@link
   * ExpiringReservations}, the same way.) Ending a reservation does not cancel this deadline: a
   * cancel racing with the deadline's own run fails the whole unit of work in db-scheduler, while a
   * deadline that finds the reservation ended does nothing. (No parameters: Axon would take the
   * first one for the deadline's payload.)
   */
  @DeadlineHandler(deadlineName = EXPIRY)
  void expire() {
    if (status == Status.RESERVED) {
      apply(
          new StockReleased(
              reservationId,
              userId,
              lines,
              StockReleased.EXPIRED,
              GenericEventMessage.clock.instant()));
    }
  }

  @EventSourcingHandler
  void on(StockReserved event) {
    streamId = ReservationEvent.streamId(event.reservationId());
    reservationId = event.reservationId();
    userId = event.userId();
    lines = event.lines();
    admission = new AdmissionId(event.admissionSequence(), event.gateEpoch());
    status = Status.RESERVED;
  }

  @EventSourcingHandler
  void on(ReservationAbandoned event) {
    streamId = ReservationEvent.streamId(event.reservationId());
    reservationId = event.reservationId();
    status = Status.ABANDONED;
  }

  @EventSourcingHandler
  void on(StockConfirmed event) {
    status = Status.CONFIRMED;
  }

  @EventSourcingHandler
  void on(StockReleased event) {
    status = Status.RELEASED;
  }
}
