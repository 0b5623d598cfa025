package io.stockade.api.reservation;

import java.time.Instant;
import java.util.List;

/**
 * Records a reservation the admission gate has already admitted: the gate decided, the event store
 * records. The command side stores it in group commits without an aggregate (its {@code
 * StoringReservations}); it is never sent on a command bus.
 *
 * @param lines merged lines, one per SKU, in the order the gate checked them
 * @param admissionSequence the gate's sequence number for this admission
 * @param gateEpoch the epoch of the gate that admitted it; the record refuses it once the gate has
 *     moved on (been rebuilt)
 */
public record ReserveStockCommand(
    String reservationId,
    String userId,
    List<ReservationLine> lines,
    Instant reservedAt,
    Instant expiresAt,
    long admissionSequence,
    long gateEpoch) {

  public ReserveStockCommand {
    lines = List.copyOf(lines);
  }
}
