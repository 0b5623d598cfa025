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

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return ReservationEvent.streamId(reservationId);
  }
}
