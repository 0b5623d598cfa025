package io.stockade.client;

import java.time.Instant;
import tools.jackson.databind.JsonNode;

/** {@code GET /api/audit/reservations/{reservationId}}: one event of the reservation, as stored. */
public record AuditedEvent(String type, Instant timestamp, long sequenceNumber, JsonNode payload) {}
