package io.stockade.api.reservation;

import java.time.Instant;
import java.util.List;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * Records a reservation the admission gate has already admitted: the gate decided, the event store
 * records.
 *
 * @param lines merged lines, one per SKU, in the order the gate checked them
 * @param admissionSequence the gate's sequence number for this admission
 */
public record ReserveStockCommand(
    @TargetAggregateIdentifier String reservationId,
    String userId,
    List<ReservationLine> lines,
    Instant reservedAt,
    Instant expiresAt,
    long admissionSequence) {

  public ReserveStockCommand {
    lines = List.copyOf(lines);
  }
}
