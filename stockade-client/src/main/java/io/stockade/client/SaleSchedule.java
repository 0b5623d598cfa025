package io.stockade.client;

import java.time.Instant;

/**
 * A sale's window: registration's {@code sale} member and {@code PUT /api/skus/{skuId}/sale}.
 *
 * @param closesAt null for no end
 * @param prequeueSeconds 0 to 3600, the pre-queue before {@code opensAt}; null for 0
 */
public record SaleSchedule(Instant opensAt, Instant closesAt, Integer prequeueSeconds) {}
