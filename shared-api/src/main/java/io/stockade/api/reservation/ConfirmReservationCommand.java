package io.stockade.api.reservation;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Payment succeeded: the reserved units become sold. Repeating it changes nothing. */
public record ConfirmReservationCommand(String reservationId, Instant confirmedAt) {

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return ReservationEvent.streamId(reservationId);
  }
}
