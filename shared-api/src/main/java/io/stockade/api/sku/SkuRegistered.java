package io.stockade.api.sku;

/**
 * A SKU was registered; its whole initial stock is available.
 *
 * @param buckets how many buckets the admission gate splits the SKU's stock over, so that the
 *     reservations of one hot SKU spread over several Redis servers; {@code null} (events stored
 *     before buckets existed) means 1
 */
public record SkuRegistered(String skuId, int initialStock, Integer perUserLimit, Integer buckets)
    implements SkuEvent {

  /** A SKU in one bucket. */
  public SkuRegistered(String skuId, int initialStock, Integer perUserLimit) {
    this(skuId, initialStock, perUserLimit, null);
  }

  /** The number of buckets, 1 when none was given. */
  public int bucketCount() {
    return buckets == null ? 1 : buckets;
  }

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
