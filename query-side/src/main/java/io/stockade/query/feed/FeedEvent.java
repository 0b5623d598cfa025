package io.stockade.query.feed;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;

/**
 * One stored event, as the feed hands it on.
 *
 * @param position its global index in the event store: the feed's order, and what {@code after} and
 *     {@code Last-Event-ID} name
 * @param type the simple name of the event's class, such as {@code StockReserved}
 * @param aggregateType the type of the aggregate whose stream holds it ({@code Reservation}, {@code
 *     Sku}, {@code QueuedReservation}), as Axon stored it
 * @param aggregateId the aggregate's own id, as the HTTP API and the payload name it: the stream
 *     identifier without its namespace ({@code O-1} for {@code reservation:O-1})
 * @param timestamp when it was stored
 * @param payload the event's JSON as stored, embedded as it is
 * @param identifier the event's own identifier in the store, not in the feed's JSON (the position
 *     names an event there); Kafka's records carry it as {@code ce_id}
 */
record FeedEvent(
    long position,
    @Schema(example = "StockReserved") String type,
    @Schema(example = "Reservation", nullable = true) String aggregateType,
    @Schema(
            example = "O-20261130-0001",
            description =
                "the aggregate's own id (a reservation's or a SKU's, as in the payload): the event"
                    + " store's stream identifier without its namespace prefix (reservation:,"
                    + " sku:, queued: for a reservation waiting in a pre-queue, of type"
                    + " QueuedReservation); aggregateType says which kind of id it is")
        String aggregateId,
    Instant timestamp,
    @JsonRawValue
        @Schema(
            type = "object",
            types = "object",
            description = "the event as stored (Axon's Jackson serialization), as a JSON object")
        String payload,
    @JsonIgnore @Schema(hidden = true) String identifier) {}
