package io.stockade.client;

import java.time.Instant;
import java.util.List;

/**
 * The answer of {@code POST /api/reservations}: {@code RESERVED} (201, or 200 for a retry) with its
 * {@code lines} and {@code expiresAt}, or {@code QUEUED} (202, a sale's pre-queue) with its {@code
 * opensAt} and {@code drawCommitment}.
 *
 * @param created whether the service recorded the reservation for this request (201); false when it
 *     had it already (200: a repeat, also of a send of the same call that got no answer) and for
 *     {@code QUEUED}
 */
public record ReservationOutcome(
    String reservationId,
    String status,
    List<ReservationLine> lines,
    Instant expiresAt,
    Instant opensAt,
    String drawCommitment,
    boolean created) {

  /** Whether it waits for a draw rather than being decided. */
  public boolean queued() {
    return "QUEUED".equals(status);
  }
}
