package io.stockade.command.reservation;

import io.stockade.api.reservation.ConfirmReservationCommand;
import io.stockade.api.reservation.ReleaseReservationCommand;
import io.stockade.command.RacedAppends;
import io.stockade.command.admission.AdmissionGate;
import io.stockade.command.admission.AdmissionGate.Transition;
import java.time.Clock;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Confirms or releases a reservation: the event first, then the gate. A crash in between leaves the
 * gate behind the record (units still counted as reserved), which errs towards not selling; a
 * repeat of the request applies the gate's side again, since both sides are idempotent. The gate's
 * side names the admission the record holds, so a repeat never ends another admission of the id
 * (one admitted anew after the gate forgot this one). Racing another instance's end of the same
 * reservation, the command that lost is decided again on the winner's state (a repeat, or not
 * active): the gate follows only the event that was stored.
 */
@Component
class EndingReservation {

  private static final Logger log = LoggerFactory.getLogger(EndingReservation.class);

  private final CommandGateway commands;
  private final AdmissionGate gate;
  private final Clock clock;

  EndingReservation(CommandGateway commands, AdmissionGate gate, Clock clock) {
    this.commands = commands;
    this.gate = gate;
    this.clock = clock;
  }

  /**
   * @throws ReservationNotActiveException when it was released
   * @throws org.axonframework.modelling.command.AggregateNotFoundException when it is unknown
   */
  void confirm(String reservationId) {
    GateHold hold =
        RacedAppends.retried(
            () ->
                commands.sendAndWait(
                    new ConfirmReservationCommand(reservationId, clock.instant())));
    follow(reservationId, gate.confirm(reservationId, hold.admission(), hold.lines()), "confirm");
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
