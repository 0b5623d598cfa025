package io.stockade.command.reservation;

import java.time.Instant;

/**
 * The outcome of extending a hold: the end it has now, and whether this request moved it.
 *
 * @param hold where the gate holds the reservation
 */
record Extension(GateHold hold, Instant expiresAt, boolean extended) {}
