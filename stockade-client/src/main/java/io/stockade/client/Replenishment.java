package io.stockade.client;

/** The body of {@code POST /api/skus/{skuId}/replenishments}, idempotent by its id. */
public record Replenishment(String replenishmentId, int quantity) {}
