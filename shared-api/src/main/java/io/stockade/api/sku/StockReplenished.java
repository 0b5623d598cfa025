package io.stockade.api.sku;

/** Units were added to a SKU's available stock. */
public record StockReplenished(String skuId, String replenishmentId, int quantity)
    implements SkuEvent {

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
