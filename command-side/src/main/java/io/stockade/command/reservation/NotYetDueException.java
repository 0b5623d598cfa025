package io.stockade.command.reservation;

import java.time.Instant;

/**
 * An expiry came for a reservation whose hold was extended: it is not due before {@code expiresAt}.
 * Nothing was changed; the expiry is to come back then.
 */
class NotYetDueException extends RuntimeException {

  private final Instant expiresAt;

  NotYetDueException(String reservationId, Instant expiresAt) {
    super("Reservation " + reservationId + " is held until " + expiresAt);
    this.expiresAt = expiresAt;
  }

  Instant expiresAt() {
    return expiresAt;
  }
}
