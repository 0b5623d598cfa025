package io.stockade.client;

import java.time.Instant;

/**
 * A SKU's sale as a service sees it.
 *
 * @param state {@code SCHEDULED}, {@code PREQUEUE}, {@code OPEN}, {@code PAUSED} or {@code CLOSED}
 * @param opensAt null for a SKU on sale from its registration
 * @param closesAt null for no end
 * @param pausedReason null unless paused
 * @param queued the pre-queue's length (query side's stock only; null elsewhere)
 */
public record SaleState(
    String state,
    Instant opensAt,
    Instant closesAt,
    int prequeueSeconds,
    String pausedReason,
    Long queued) {}
