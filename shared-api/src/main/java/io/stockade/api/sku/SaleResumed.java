package io.stockade.api.sku;

/** A SKU's paused sale was resumed. */
public record SaleResumed(String skuId) implements SkuEvent {

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
