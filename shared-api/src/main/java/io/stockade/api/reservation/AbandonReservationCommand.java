package io.stockade.api.reservation;

import java.time.Instant;
import java.util.List;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * Records that the gate admitted a reservation whose event was never stored, so that its units can
 * be given back. It creates the reservation's stream: if the reservation's own event gets there
 * first, this fails, and the other way round.
 */
public record AbandonReservationCommand(
    String reservationId,
    String userId,
    List<ReservationLine> lines,
    long admissionSequence,
    Instant abandonedAt) {

  public AbandonReservationCommand {
    lines = List.copyOf(lines);
  }

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return ReservationEvent.streamId(reservationId);
  }
}
