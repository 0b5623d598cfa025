package io.stockade.api.reservation;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * A reservation's expiry came due: its units go back with reason EXPIRED, unless it ended before or
 * its hold was extended past {@code dueAt} (then nothing changes, and the expiry is to come back at
 * the new end).
 *
 * @param dueAt the end of the hold the expiry was set for
 * @param expiredAt when the expiry ran
 */
public record ExpireReservationCommand(String reservationId, Instant dueAt, Instant expiredAt) {

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return ReservationEvent.streamId(reservationId);
  }
}
