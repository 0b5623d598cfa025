package io.stockade.api.reservation;

import java.time.Instant;
import java.util.List;

/**
 * One reservation, built from the event stream.
 *
 * @param status RESERVED, CONFIRMED or RELEASED; an admission the record never stored ({@link
 *     ReservationAbandoned}) shows as RELEASED with reason {@link ReservationAbandoned#REASON}. A
 *     reservation confirmed in part is CONFIRMED: the units it gave back are no release of it
 * @param lines the units reserved
 * @param expiresAt the end of the hold, the latest {@link ReservationExtended} has it; {@code null}
 *     for an abandoned admission
 * @param confirmedAt when it was paid for, or {@code null}
 * @param confirmedLines the units sold, as its {@link StockConfirmed} names them: {@code lines} for
 *     a full confirmation, the SKUs with at least one unit sold for a partial one; {@code null}
 *     until confirmed
 * @param releasedAt when its units went back to available stock, or {@code null}; for a partial
 *     confirmation, when the units it did not confirm went back
 * @param releaseReason why they went back (CANCELLED, EXPIRED, NOT_RECORDED, and {@link
 *     StockReleased#NOT_CONFIRMED} for the units a partial confirmation gave back), or {@code null}
 */
public record ReservationView(
    String reservationId,
    String userId,
    String status,
    List<ReservationLine> lines,
    Instant createdAt,
    Instant expiresAt,
    Instant confirmedAt,
    List<ReservationLine> confirmedLines,
    Instant releasedAt,
    String releaseReason) {

  public ReservationView {
    lines = List.copyOf(lines);
    confirmedLines = confirmedLines == null ? null : List.copyOf(confirmedLines);
  }
}
