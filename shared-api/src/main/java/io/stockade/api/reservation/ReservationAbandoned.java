package io.stockade.api.reservation;

import java.time.Instant;
import java.util.List;

/**
 * The gate admitted this reservation but its {@link StockReserved} was never stored (a crash, a
 * failed database): nothing was reserved in the record, and the units the gate held were given
 * back. The reservation id can no longer be used.
 */
public record ReservationAbandoned(
    String reservationId,
    String userId,
    List<ReservationLine> lines,
    long admissionSequence,
    Instant abandonedAt)
    implements ReservationEvent {

  /** The reason the gate's release carries for an abandoned admission. */
  public static final String REASON = "NOT_RECORDED";

  public ReservationAbandoned {
    lines = List.copyOf(lines);
  }

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
