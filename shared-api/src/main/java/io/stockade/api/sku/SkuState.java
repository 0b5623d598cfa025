package io.stockade.api.sku;

/**
 * A SKU's registration as the record knows it, and whether the last command created it.
 *
 * @param totalStock units ever made sellable: the initial stock plus replenishments
 * @param buckets how many buckets the admission gate splits the stock over
 */
public record SkuState(
    String skuId,
    int initialStock,
    Integer perUserLimit,
    long totalStock,
    boolean created,
    int buckets) {

  /** A SKU in one bucket. */
  public SkuState(
      String skuId, int initialStock, Integer perUserLimit, long totalStock, boolean created) {
    this(skuId, initialStock, perUserLimit, totalStock, created, 1);
  }
}
