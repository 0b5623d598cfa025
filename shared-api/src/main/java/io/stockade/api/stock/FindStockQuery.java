package io.stockade.api.stock;

/** Asks for one SKU's stock as the read model shows it. */
public record FindStockQuery(String skuId) {}
