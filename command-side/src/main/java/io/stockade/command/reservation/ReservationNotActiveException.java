package io.stockade.command.reservation;

/**
 * The reservation already ended the other way: confirmed when releasing, released when confirming.
 */
class ReservationNotActiveException extends RuntimeException {

  private final Reservation.Status status;

  ReservationNotActiveException(String reservationId, Reservation.Status status) {
    super("Reservation " + reservationId + " is " + status);
    this.status = status;
  }

  Reservation.Status status() {
    return status;
  }
}
