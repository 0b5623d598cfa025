package io.stockade.api.draw;

import java.time.Instant;

/**
 * A queued reservation was decided by the draw at {@code opensAt}, at {@code position} (0-based) of
 * the draw order. Stored on the queued reservation's stream after {@link ReservationQueued}; an
 * admitted one also begins its reservation's stream with {@code StockReserved}, committed in the
 * same transaction.
 *
 * @param outcome {@code ADMITTED}, or the refusal: {@code INSUFFICIENT_STOCK}, {@code
 *     LIMIT_EXCEEDED}, {@code SALE_CLOSED} or {@code SALE_PAUSED}
 * @param skuId the line the refusal names; {@code null} when admitted
 */
public record ReservationDrawn(
    String reservationId, Instant opensAt, long position, String outcome, String skuId) {

  public static final String ADMITTED = "ADMITTED";

  public boolean admitted() {
    return ADMITTED.equals(outcome);
  }
}
