package io.stockade.command.reservation;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import io.stockade.api.reservation.AbandonReservationCommand;
import io.stockade.api.reservation.ConfirmReservationCommand;
import io.stockade.api.reservation.ExpireReservationCommand;
import io.stockade.api.reservation.ExtendReservationCommand;
import io.stockade.api.reservation.ReleaseReservationCommand;
import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.reservation.InvalidConfirmationException.WrongLine;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.deadline.annotation.DeadlineHandler;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.spring.stereotype.Aggregate;

/**
 * One reservation's life: reserved, perhaps extended, then confirmed (wholly or in part, the rest
 * given back) or released (by request, or by its expiry when unpaid), once. It records what the
 * admission gate decided; the gate, not this aggregate, guards the stock, so reservations of one
 * hot SKU do not contend here.
 */
@Aggregate
class Reservation implements ReservationEvent.Fold {

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

  /** The end of the hold as reserved, and as extended since. */
  private Instant reservedUntil;

  private Instant expiresAt;

  /** The units sold, once confirmed: {@code lines}, or fewer for a partial confirmation. */
  private List<ReservationLine> confirmedLines;

  Reservation() {}

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
   * Confirms once, every unit or those the command names (a partial confirmation: the rest of the
   * reserved units are released in the same transaction, reason NOT_CONFIRMED). A repeat with the
   * same lines, or none, changes nothing; a repeat with other lines, or a confirmation of a
   * released reservation, is refused.
   *
   * @return the admission the gate is to confirm, where it holds it, and the units sold
   * @throws InvalidConfirmationException when the lines name a SKU the reservation does not hold,
   *     or more units of one than it reserved
   */
  @CommandHandler
  GateHold handle(ConfirmReservationCommand command) {
    if (status == Status.ABANDONED) {
      throw new ReservationNotActiveException(reservationId, status);
    }
    List<ReservationLine> selling = command.lines() == null ? lines : confirmable(command.lines());
    if (status == Status.CONFIRMED) {
      if (command.lines() == null || selling.equals(confirmedLines)) {
        return hold();
      }
      throw new ReservationNotActiveException(reservationId, status);
    }
    if (status != Status.RESERVED) {
      throw new ReservationNotActiveException(reservationId, status);
    }
    apply(new StockConfirmed(reservationId, userId, selling, command.confirmedAt()));
    List<ReservationLine> left = left(selling);
    if (!left.isEmpty()) {
      apply(
          new StockReleased(
              reservationId, userId, left, StockReleased.NOT_CONFIRMED, command.confirmedAt()));
    }
    return hold();
  }

  /**
   * The lines to sell, merged per SKU, in the order of the reservation's lines.
   *
   * @throws InvalidConfirmationException when a line names a SKU not reserved, more units than
   *     reserved, or fewer than one
   */
  private List<ReservationLine> confirmable(List<ReservationLine> asked) {
    Map<String, Integer> reserved = new LinkedHashMap<>();
    lines.forEach(line -> reserved.put(line.skuId(), line.quantity()));
    Map<String, Long> merged = new LinkedHashMap<>();
    Map<String, Integer> firstIndex = new LinkedHashMap<>();
    for (int i = 0; i < asked.size(); i++) {
      ReservationLine line = asked.get(i);
      merged.merge(line.skuId(), (long) line.quantity(), Long::sum);
      firstIndex.putIfAbsent(line.skuId(), i);
    }
    List<WrongLine> wrong = new ArrayList<>();
    if (asked.isEmpty()) {
      wrong.add(new WrongLine(-1, "lines", "at least one line"));
    }
    merged.forEach(
        (skuId, quantity) -> {
          int index = firstIndex.get(skuId);
          Integer held = reserved.get(skuId);
          if (held == null) {
            wrong.add(
                new WrongLine(
                    index, "lines[" + index + "].skuId", "SKU " + skuId + " is not reserved"));
          } else if (quantity < 1 || quantity > held) {
            wrong.add(
                new WrongLine(
                    index,
                    "lines[" + index + "].quantity",
                    "1 to " + held + ", the units of SKU " + skuId + " reserved"));
          }
        });
    if (!wrong.isEmpty()) {
      throw new InvalidConfirmationException(reservationId, wrong);
    }
    List<ReservationLine> selling = new ArrayList<>();
    for (ReservationLine line : lines) {
      Long quantity = merged.get(line.skuId());
      if (quantity != null) {
        selling.add(new ReservationLine(line.skuId(), quantity.intValue()));
      }
    }
    return List.copyOf(selling);
  }

  /** The reserved units a confirmation of {@code selling} leaves, line by line. */
  private List<ReservationLine> left(List<ReservationLine> selling) {
    Map<String, Integer> sold = new LinkedHashMap<>();
    selling.forEach(line -> sold.put(line.skuId(), line.quantity()));
    List<ReservationLine> left = new ArrayList<>();
    for (ReservationLine line : lines) {
      int rest = line.quantity() - sold.getOrDefault(line.skuId(), 0);
      if (rest > 0) {
        left.add(new ReservationLine(line.skuId(), rest));
      }
    }
    return List.copyOf(left);
  }

  /**
   * Extends the hold to the later of its end and the one asked for; a repeat (an end not later)
   * changes nothing. A reservation that ended, or whose hold has passed (its expiry not yet run),
   * cannot be extended.
   *
   * @return the hold as it now ends, and where the gate holds the reservation
   */
  @CommandHandler
  Extension handle(ExtendReservationCommand command) {
    if (status != Status.RESERVED) {
      throw new ReservationNotActiveException(reservationId, status);
    }
    if (!expiresAt.isAfter(command.extendedAt())) {
      throw new ReservationNotActiveException(reservationId, ReservationNotActiveException.EXPIRED);
    }
    if (command.expiresAt().isAfter(expiresAt)) {
      apply(
          new ReservationExtended(
              reservationId, userId, command.expiresAt(), command.extendedAt()));
      return new Extension(hold(), expiresAt, true);
    }
    return new Extension(hold(), expiresAt, false);
  }

  /**
   * Expires the reservation when its hold ends where the expiry was set for; a hold extended since
   * is not due ({@link NotYetDueException}), and a reservation that ended is left as it is.
   */
  @CommandHandler
  GateHold handle(ExpireReservationCommand command) {
    if (status != Status.RESERVED) {
      throw new ReservationNotActiveException(reservationId, status);
    }
    if (expiresAt.isAfter(command.dueAt())) {
      throw new NotYetDueException(reservationId, expiresAt);
    }
    apply(
        new StockReleased(
            reservationId, userId, lines, StockReleased.EXPIRED, command.expiredAt()));
    return hold();
  }

  private GateHold hold() {
    return new GateHold(admission, lines, lines.equals(confirmedLines) ? null : confirmedLines);
  }

  /**
   * Releases once; a repeat changes nothing; a confirmed reservation cannot be released.
   *
   * @return the admission the gate is to release, and where it holds it
   */
  @CommandHandler
  GateHold handle(ReleaseReservationCommand command) {
    if (status == Status.RELEASED) {
      return hold();
    }
    if (status != Status.RESERVED) {
      throw new ReservationNotActiveException(reservationId, status);
    }
    apply(new StockReleased(reservationId, userId, lines, command.reason(), command.releasedAt()));
    return hold();
  }

  /**
   * Unpaid when its hold passed: released with reason EXPIRED, unless it ended before. (Deadlines
   * that an earlier version scheduled when the aggregate itself recorded new reservations; the
   * reservations stored since by {@link StoringReservations} are expired by {@link
   * ExpiringReservations}, the same way.) Ending a reservation does not cancel this deadline: a
   * cancel racing with the deadline's own run fails the whole unit of work in db-scheduler, while a
   * deadline that finds the reservation ended does nothing. (No parameters: Axon would take the
   * first one for the deadline's payload.) A hold extended since it was scheduled is left to the
   * expiry row the extension wrote ({@link ExtendingReservation}).
   */
  @DeadlineHandler(deadlineName = EXPIRY)
  void expire() {
    if (status == Status.RESERVED && !expiresAt.isAfter(reservedUntil)) {
      apply(
          new StockReleased(
              reservationId,
              userId,
              lines,
              StockReleased.EXPIRED,
              GenericEventMessage.clock.instant()));
    }
  }

  /**
   * The one handler Axon resolves for the stream: the event goes on to this aggregate's fold method
   * for its type, which the compiler checks there is.
   */
  @EventSourcingHandler
  void on(ReservationEvent event) {
    event.applyTo(this);
  }

  @Override
  public void on(StockReserved event) {
    streamId = ReservationEvent.streamId(event.reservationId());
    reservationId = event.reservationId();
    userId = event.userId();
    lines = event.lines();
    admission = new AdmissionId(event.admissionSequence(), event.gateEpoch());
    status = Status.RESERVED;
    reservedUntil = event.expiresAt();
    expiresAt = event.expiresAt();
  }

  @Override
  public void on(ReservationExtended event) {
    expiresAt = event.expiresAt();
  }

  @Override
  public void on(ReservationAbandoned event) {
    streamId = ReservationEvent.streamId(event.reservationId());
    reservationId = event.reservationId();
    status = Status.ABANDONED;
  }

  @Override
  public void on(StockConfirmed event) {
    status = Status.CONFIRMED;
    confirmedLines = event.lines();
  }

  @Override
  public void on(StockReleased event) {
    // The units a partial confirmation leaves: the reservation stays confirmed.
    if (status != Status.CONFIRMED) {
      status = Status.RELEASED;
    }
  }
}
