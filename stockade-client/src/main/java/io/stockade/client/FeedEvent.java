package io.stockade.client;

import java.time.Instant;
import tools.jackson.databind.JsonNode;

/**
 * One event of the feed.
 *
 * @param position the event's global index in the event store: the feed's order (with gaps)
 * @param type {@code StockReserved}, {@code StockReleased}...
 * @param aggregateType {@code Reservation}, {@code Sku} or {@code QueuedReservation}
 * @param aggregateId the reservation's or the SKU's own id
 * @param payload the event as stored
 */
public record FeedEvent(
    long position,
    String type,
    String aggregateType,
    String aggregateId,
    Instant timestamp,
    JsonNode payload) {}
