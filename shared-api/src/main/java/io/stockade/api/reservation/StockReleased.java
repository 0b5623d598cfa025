package io.stockade.api.reservation;

import java.time.Instant;
import java.util.List;

/** A reservation ended unpaid: its units are available again, for the given reason. */
public record StockReleased(
    String reservationId,
    String userId,
    List<ReservationLine> lines,
    String reason,
    Instant releasedAt)
    implements ReservationEvent {

  /** The reason of a release by the reservation's deadline. */
  public static final String EXPIRED = "EXPIRED";

  public StockReleased {
    lines = List.copyOf(lines);
  }
}
