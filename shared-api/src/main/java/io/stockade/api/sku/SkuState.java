package io.stockade.api.sku;

/**
 * A SKU's registration as the record knows it, and whether the last command created it.
 *
 * @param totalStock units ever made sellable: the initial stock plus replenishments
 */
public record SkuState(
    String skuId, int initialStock, Integer perUserLimit, long totalStock, boolean created) {}
