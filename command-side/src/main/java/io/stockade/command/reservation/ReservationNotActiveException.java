package io.stockade.command.reservation;

/**
 * The reservation cannot take the step asked for: it ended (confirmed when releasing or extending,
 * released when confirming, confirmed with other lines), or its hold has passed (EXPIRED, when
 * extending a reservation its expiry has not released yet).
 */
class ReservationNotActiveException extends RuntimeException {

  /** The status reported for a reservation whose hold has passed but is not released yet. */
  static final String EXPIRED = "EXPIRED";

  private final String status;

  ReservationNotActiveException(String reservationId, Reservation.Status status) {
    this(reservationId, status.name());
  }

  ReservationNotActiveException(String reservationId, String status) {
    super("Reservation " + reservationId + " is " + status);
    this.status = status;
  }

  String status() {
    return status;
  }
}
