package io.stockade.query.audit;

import java.time.Instant;

/**
 * One event as the event store holds it.
 *
 * @param type the simple name of the payload's class, e.g. {@code StockReserved}
 * @param timestamp when the event was stored
 * @param sequenceNumber its position in its aggregate's stream, from 0
 * @param payload the event itself
 */
record AuditedEvent(String type, Instant timestamp, long sequenceNumber, Object payload) {}
