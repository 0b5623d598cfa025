package io.stockade.api.sku;

import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * Registers a SKU with its initial stock. Repeating it with the same values changes nothing.
 *
 * @param perUserLimit units one user may hold (reserved or bought), or {@code null} for no limit
 * @param buckets how many buckets the admission gate splits the stock over, or {@code null} for 1
 * @param sale the sale's window, or {@code null}: on sale from the registration
 * @param drawCommitment with a pre-queue in {@code sale}, the commitment to the seed of the draw at
 *     its {@code opensAt}; {@code null} without one
 */
public record RegisterSkuCommand(
    String skuId,
    int initialStock,
    Integer perUserLimit,
    Integer buckets,
    SaleWindow sale,
    String drawCommitment) {

  /** A SKU whose sale has no pre-queue. */
  public RegisterSkuCommand(
      String skuId, int initialStock, Integer perUserLimit, Integer buckets, SaleWindow sale) {
    this(skuId, initialStock, perUserLimit, buckets, sale, null);
  }

  /** A SKU in one bucket. */
  public RegisterSkuCommand(String skuId, int initialStock, Integer perUserLimit) {
    this(skuId, initialStock, perUserLimit, null, null, null);
  }

  /** A SKU on sale from its registration. */
  public RegisterSkuCommand(String skuId, int initialStock, Integer perUserLimit, Integer buckets) {
    this(skuId, initialStock, perUserLimit, buckets, null, null);
  }

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return SkuEvent.streamId(skuId);
  }
}
