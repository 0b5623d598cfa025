package io.stockade.client;

/** {@code GET /api/skus/{skuId}} and the sale's commands: the SKU as the gate sees it now. */
public record SkuState(
    String skuId,
    long total,
    long available,
    long reserved,
    long sold,
    Long perUserLimit,
    SaleState sale) {}
