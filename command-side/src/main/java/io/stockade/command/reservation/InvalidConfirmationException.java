package io.stockade.command.reservation;

import java.util.List;

/**
 * A partial confirmation names a SKU the reservation does not hold, or more units than it reserved
 * of one: nothing was changed.
 *
 * @see Reservation#handle(io.stockade.api.reservation.ConfirmReservationCommand)
 */
class InvalidConfirmationException extends RuntimeException {

  /** One wrong line: its index in the request's merged lines, and what is wrong with it. */
  record WrongLine(int index, String field, String message) {}

  private final List<WrongLine> wrong;

  InvalidConfirmationException(String reservationId, List<WrongLine> wrong) {
    super("Confirmation of " + reservationId + " names lines it does not hold: " + wrong);
    this.wrong = List.copyOf(wrong);
  }

  List<WrongLine> wrong() {
    return wrong;
  }
}
