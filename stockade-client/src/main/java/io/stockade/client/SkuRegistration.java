package io.stockade.client;

/**
 * The body of {@code PUT /api/skus/{skuId}}.
 *
 * @param perUserLimit null for no limit
 * @param buckets 1 to 1024, null for 1
 * @param sale null: on sale from its registration
 */
public record SkuRegistration(
    long initialStock, Integer perUserLimit, Integer buckets, SaleSchedule sale) {

  /** A SKU with that stock, no limit, one bucket, on sale at once. */
  public static SkuRegistration of(long initialStock) {
    return new SkuRegistration(initialStock, null, null, null);
  }

  public SkuRegistration withPerUserLimit(Integer perUserLimit) {
    return new SkuRegistration(initialStock, perUserLimit, buckets, sale);
  }

  public SkuRegistration withBuckets(Integer buckets) {
    return new SkuRegistration(initialStock, perUserLimit, buckets, sale);
  }

  public SkuRegistration withSale(SaleSchedule sale) {
    return new SkuRegistration(initialStock, perUserLimit, buckets, sale);
  }
}
