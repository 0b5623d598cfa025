package io.stockade.api.sku;

/**
 * A SKU's sale was paused: no unit of it is admitted until it is resumed.
 *
 * @param reason why, as the operator gave it, or {@code null}
 */
public record SalePaused(String skuId, String reason) implements SkuEvent {

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
