package io.stockade.api.reservation;

import java.time.Instant;
import java.util.List;

/**
 * One reservation, built from the event stream.
 *
 * @param status RESERVED, CONFIRMED or RELEASED; an admission the record never stored ({@link
 *     ReservationAbandoned}) shows as RELEASED with reason {@link ReservationAbandoned#REASON}
 * @param expiresAt the end of the hold, or {@code null} for an abandoned admission
 * @param confirmedAt when it was paid for, or {@code null}
 * @param releasedAt when its units went back to available stock, or {@code null}
 * @param releaseReason why they went back (CANCELLED, EXPIRED, NOT_RECORDED, ...), or {@code null}
 */
public record ReservationView(
    String reservationId,
    String userId,
    String status,
    List<ReservationLine> lines,
    Instant createdAt,
    Instant expiresAt,
    Instant confirmedAt,
    Instant releasedAt,
    String releaseReason) {

  public ReservationView {
    lines = List.copyOf(lines);
  }
}
