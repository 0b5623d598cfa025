package io.stockade.api.reservation;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * The reserved units go back to available stock. Repeating it changes nothing.
 *
 * @param reason why: CANCELLED, EXPIRED, PAYMENT_FAILED, ... ({@code [A-Z_]{1,32}})
 */
public record ReleaseReservationCommand(String reservationId, String reason, Instant releasedAt) {

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return ReservationEvent.streamId(reservationId);
  }
}
