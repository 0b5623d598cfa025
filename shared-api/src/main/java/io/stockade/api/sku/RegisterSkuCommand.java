package io.stockade.api.sku;

import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * Registers a SKU with its initial stock. Repeating it with the same values changes nothing.
 *
 * @param perUserLimit units one user may hold (reserved or bought), or {@code null} for no limit
 * @param buckets how many buckets the admission gate splits the stock over, or {@code null} for 1
 */
public record RegisterSkuCommand(
    String skuId, int initialStock, Integer perUserLimit, Integer buckets) {

  /** A SKU in one bucket. */
  public RegisterSkuCommand(String skuId, int initialStock, Integer perUserLimit) {
    this(skuId, initialStock, perUserLimit, null);
  }

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return SkuEvent.streamId(skuId);
  }
}
