package io.stockade.command.reservation;

import io.stockade.api.reservation.ConfirmReservationCommand;
import io.stockade.api.reservation.ExpireReservationCommand;
import io.stockade.api.reservation.ReleaseReservationCommand;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReleased;
import io.stockade.command.RacedAppends;
import io.stockade.command.admission.ReservationTransitions;
import io.stockade.command.admission.ReservationTransitions.Transition;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Confirms (wholly or in part), releases or expires a reservation: the event first, then the gate.
 * A crash in between leaves the gate behind the record (units still counted as reserved), which
 * errs towards not selling; a repeat of the request applies the gate's side again, since both sides
 * are idempotent. The gate's side names the admission the record holds, so a repeat never ends
 * another admission of the id (one admitted anew after the gate forgot this one). Racing another
 * instance's end of the same reservation, the command that lost is decided again on the winner's
 * state (a repeat, or not active): the gate follows only the event that was stored.
 */
@Component
class EndingReservation {

  private static final Logger log = LoggerFactory.getLogger(EndingReservation.class);

  private final CommandGateway commands;
  private final ReservationTransitions gate;
  private final Clock clock;

  EndingReservation(CommandGateway commands, ReservationTransitions gate, Clock clock) {
    this.commands = commands;
    this.gate = gate;
    this.clock = clock;
  }

  /**
   * Sells every reserved unit, or those {@code lines} name (null: all); a partial confirmation
   * gives the rest back, in the gate in the same step as the sale.
   *
   * @return the units sold
   * @throws ReservationNotActiveException when it was released, or confirmed with other lines
   * @throws InvalidConfirmationException when the lines are not the reservation's
   * @throws org.axonframework.modelling.command.AggregateNotFoundException when it is unknown
   */
  List<ReservationLine> confirm(String reservationId, List<ReservationLine> lines) {
    GateHold hold =
        RacedAppends.retried(
            () ->
                commands.sendAndWait(
                    new ConfirmReservationCommand(reservationId, lines, clock.instant())));
    follow(
        reservationId,
        gate.confirm(reservationId, hold.admission(), hold.lines(), hold.confirmed()),
        "confirm");
    return hold.sold();
  }

  /**
   * Expires the reservation if its hold still ends at {@code dueAt}.
   *
   * @throws NotYetDueException when its hold was extended past {@code dueAt}
   * @throws ReservationNotActiveException when it ended before
   * @throws org.axonframework.modelling.command.AggregateNotFoundException when it is unknown
   */
  void expire(String reservationId, Instant dueAt) {
    GateHold hold =
        RacedAppends.retried(
            () ->
                commands.sendAndWait(
                    new ExpireReservationCommand(reservationId, dueAt, clock.instant())));
    follow(
        reservationId,
        gate.release(reservationId, hold.admission(), hold.lines(), StockReleased.EXPIRED),
        "expiry");
  }

  /**
   * @throws ReservationNotActiveException when it was confirmed
   * @throws org.axonframework.modelling.command.AggregateNotFoundException when it is unknown
   */
  void release(String reservationId, String reason) {
    GateHold hold =
        RacedAppends.retried(
            () ->
                commands.sendAndWait(
                    new ReleaseReservationCommand(reservationId, reason, clock.instant())));
    follow(
        reservationId,
        gate.release(reservationId, hold.admission(), hold.lines(), reason),
        "release");
  }

  /**
   * The record has spoken. A gate that could not follow now (unavailable, say) is brought up to the
   * record by the {@link GateFollower}, which retries from the event stream.
   */
  private static void follow(String reservationId, Transition outcome, String operation) {
    if (outcome != Transition.DONE && outcome != Transition.ALREADY_DONE) {
      log.info("Gate did not follow the {} of {} yet ({})", operation, reservationId, outcome);
    }
  }
}
