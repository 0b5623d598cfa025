package io.stockade.client;

import java.util.List;

/**
 * The body of {@code POST /api/reservations}; a retry with the same content is answered as the
 * first.
 *
 * @param holdSeconds null for the service's default hold
 */
public record ReservationRequest(
    String reservationId, String userId, List<ReservationLine> lines, Long holdSeconds) {

  public ReservationRequest {
    lines = List.copyOf(lines);
  }

  /** A reservation of these lines with the default hold. */
  public static ReservationRequest of(
      String reservationId, String userId, ReservationLine... lines) {
    return new ReservationRequest(reservationId, userId, List.of(lines), null);
  }

  public ReservationRequest withHoldSeconds(Long holdSeconds) {
    return new ReservationRequest(reservationId, userId, lines, holdSeconds);
  }
}
