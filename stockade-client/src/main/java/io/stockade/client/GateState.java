package io.stockade.client;

import java.time.Instant;

/**
 * {@code GET /api/gate}: the gate's markers in Redis.
 *
 * @param state {@code OPEN}, {@code REBUILDING} or {@code CLOSED}
 * @param reason why it is not open; null when it is
 */
public record GateState(
    String state, String reason, Long epoch, int partitions, Instant checkedAt) {}
