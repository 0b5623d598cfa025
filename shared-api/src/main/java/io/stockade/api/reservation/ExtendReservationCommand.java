package io.stockade.api.reservation;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * Extends a reservation's hold to the later of its current end and {@code expiresAt}. Repeating it
 * changes nothing; a reservation that ended (or whose hold has passed) cannot be extended.
 *
 * @param expiresAt the end of the hold asked for: the time of the request plus the hold asked for
 */
public record ExtendReservationCommand(
    String reservationId, Instant expiresAt, Instant extendedAt) {

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return ReservationEvent.streamId(reservationId);
  }
}
