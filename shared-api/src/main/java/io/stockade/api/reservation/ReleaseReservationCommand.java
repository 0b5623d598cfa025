package io.stockade.api.reservation;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * The reserved units go back to available stock. Repeating it changes nothing.
 *
 * @param reason why: CANCELLED, EXPIRED, PAYMENT_FAILED, ... ({@code [A-Z_]{1,32}})
 */
public record ReleaseReservationCommand(
    @TargetAggregateIdentifier String reservationId, String reason, Instant releasedAt) {}
