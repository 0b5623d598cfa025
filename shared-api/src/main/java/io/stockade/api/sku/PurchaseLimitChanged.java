package io.stockade.api.sku;

/**
 * The units one user may hold of a SKU changed, for every reservation decided after it.
 *
 * @param perUserLimit the new limit, or {@code null} for none
 */
public record PurchaseLimitChanged(String skuId, Integer perUserLimit) implements SkuEvent {

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
