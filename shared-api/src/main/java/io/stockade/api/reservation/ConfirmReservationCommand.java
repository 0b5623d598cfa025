package io.stockade.api.reservation;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Payment succeeded: the reserved units become sold. Repeating it changes nothing. */
public record ConfirmReservationCommand(
    @TargetAggregateIdentifier String reservationId, Instant confirmedAt) {}
