package io.stockade.api.reservation;

import java.time.Instant;

/**
 * A reservation's hold was extended (a payment still in progress): it now expires at {@code
 * expiresAt}, later than before. Its units stay reserved; nothing else changes.
 *
 * @param expiresAt the new end of the hold, after the one it replaces
 * @param extendedAt when the extension was asked for
 */
public record ReservationExtended(
    String reservationId, String userId, Instant expiresAt, Instant extendedAt)
    implements ReservationEvent {

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
