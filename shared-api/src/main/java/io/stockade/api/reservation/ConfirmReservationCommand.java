package io.stockade.api.reservation;

import java.time.Instant;
import java.util.List;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * Payment succeeded: the reserved units, or those {@code lines} name, become sold; a partial
 * confirmation gives every other reserved unit back at once. Repeating it with the same lines (or
 * none) changes nothing.
 *
 * @param lines the units to sell, one line per SKU of the reservation, each at most its reserved
 *     quantity; {@code null} for every reserved unit
 */
public record ConfirmReservationCommand(
    String reservationId, List<ReservationLine> lines, Instant confirmedAt) {

  public ConfirmReservationCommand {
    lines = lines == null ? null : List.copyOf(lines);
  }

  /** Confirms every reserved unit. */
  public ConfirmReservationCommand(String reservationId, Instant confirmedAt) {
    this(reservationId, null, confirmedAt);
  }

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return ReservationEvent.streamId(reservationId);
  }
}
