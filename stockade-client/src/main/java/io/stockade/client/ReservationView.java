package io.stockade.client;

import java.time.Instant;
import java.util.List;

/**
 * {@code GET /api/reservations/{reservationId}}: a reservation as the query side has it; members
 * that do not apply are null.
 *
 * @param status {@code RESERVED}, {@code CONFIRMED}, {@code RELEASED}, {@code QUEUED} or {@code
 *     REFUSED}
 * @param confirmedLines the units sold, null until confirmed
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
    String releaseReason) {}
