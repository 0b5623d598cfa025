package io.stockade.api.reservation;

import java.time.Instant;
import java.util.List;

/**
 * Units of one or more SKUs were taken out of available stock for a user, until {@code expiresAt}
 * unless confirmed.
 */
public record StockReserved(
    String reservationId,
    String userId,
    List<ReservationLine> lines,
    Instant reservedAt,
    Instant expiresAt,
    long admissionSequence)
    implements ReservationEvent {

  public StockReserved {
    lines = List.copyOf(lines);
  }
}
