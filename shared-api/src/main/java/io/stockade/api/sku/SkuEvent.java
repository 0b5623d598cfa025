package io.stockade.api.sku;

/** The events of one SKU's stream. */
public sealed interface SkuEvent permits SkuRegistered, StockReplenished {

  String skuId();
}
