package io.stockade.client;

/** The answer of a registration or a replenishment. */
public record RegisteredSku(
    String skuId, long initialStock, Integer perUserLimit, long totalStock, int buckets) {}
