package io.stockade.api.reservation;

import java.time.Instant;
import java.util.List;

/** A reservation was paid for: its reserved units are sold. */
public record StockConfirmed(
    String reservationId, String userId, List<ReservationLine> lines, Instant confirmedAt)
    implements ReservationEvent {

  public StockConfirmed {
    lines = List.copyOf(lines);
  }
}
