package io.stockade.api.reservation;

import java.time.Instant;
import java.util.List;

/**
 * Units of one or more SKUs were taken out of available stock for a user, until {@code expiresAt}
 * unless confirmed.
 *
 * @param admissionSequence the admission gate's sequence number for it, within {@code gateEpoch}
 * @param gateEpoch the epoch of the gate that admitted it (a gate rebuilt from the event store
 *     starts a new epoch); 0 in events stored before epochs existed
 */
public record StockReserved(
    String reservationId,
    String userId,
    List<ReservationLine> lines,
    Instant reservedAt,
    Instant expiresAt,
    long admissionSequence,
    long gateEpoch)
    implements ReservationEvent {

  public StockReserved {
    lines = List.copyOf(lines);
  }

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
