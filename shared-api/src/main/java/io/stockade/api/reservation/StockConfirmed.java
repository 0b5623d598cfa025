package io.stockade.api.reservation;

import java.time.Instant;
import java.util.List;

/**
 * A reservation was paid for: these units are sold. When they are fewer than it reserved (a partial
 * confirmation), a {@link StockReleased} with reason {@link StockReleased#NOT_CONFIRMED} follows in
 * the same transaction with the rest.
 *
 * @param lines the units sold, one line per SKU, in the order of the reservation's lines
 */
public record StockConfirmed(
    String reservationId, String userId, List<ReservationLine> lines, Instant confirmedAt)
    implements ReservationEvent {

  public StockConfirmed {
    lines = List.copyOf(lines);
  }

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
