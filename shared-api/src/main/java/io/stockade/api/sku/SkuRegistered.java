package io.stockade.api.sku;

/** A SKU was registered; its whole initial stock is available. */
public record SkuRegistered(String skuId, int initialStock, Integer perUserLimit)
    implements SkuEvent {}
