package io.stockade.command.sku;

import io.stockade.api.sku.SaleStatus;

/**
 * A SKU as the gate sees it now ({@code GET /api/skus/{skuId}} and the answer of every sale
 * command): the gate's counters, limit and window, by the gate's clock; the pre-queue's length and
 * the pause's reason, which the gate does not hold, from the SKU's stream.
 */
record SkuView(
    String skuId,
    long total,
    long available,
    long reserved,
    long sold,
    Long perUserLimit,
    SaleStatus sale) {}
