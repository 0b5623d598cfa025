package io.stockade.client;

import java.time.Instant;

/**
 * One decision of the admission gate.
 *
 * @param skuId in a user's decisions; null in a SKU's
 * @param reservationId null for a gap ({@code REFUSALS_DROPPED})
 * @param outcome {@code ADMITTED}, {@code INSUFFICIENT_STOCK}, {@code PURCHASE_LIMIT_EXCEEDED},
 *     {@code WITHDRAWN}, {@code REFUSALS_DROPPED}...
 * @param availableAfter the units left right after it; null when not known
 */
public record Decision(
    String skuId,
    long sequence,
    Instant at,
    String reservationId,
    String userId,
    int quantity,
    String outcome,
    Long availableAfter,
    int bucket) {}
