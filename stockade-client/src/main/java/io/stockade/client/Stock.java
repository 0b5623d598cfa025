package io.stockade.client;

import java.time.Instant;

/** {@code GET /api/stock/{skuId}}: a SKU's stock built from the events. */
public record Stock(
    String skuId,
    long total,
    long available,
    long reserved,
    long sold,
    Integer perUserLimit,
    Instant updatedAt,
    SaleState sale) {}
