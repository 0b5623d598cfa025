package io.stockade.api.sku;

import java.time.Instant;

/**
 * A sale's window as a registration gives it.
 *
 * @param closesAt when the sale ends, or {@code null} for no end
 * @param prequeueSeconds how long before {@code opensAt} the pre-queue opens (0: none)
 */
public record SaleWindow(Instant opensAt, Instant closesAt, int prequeueSeconds) {}
