package io.stockade.api.sku;

/**
 * A SKU's stock was corrected by {@code quantity} units: a negative adjustment took them from the
 * available stock (never from reserved or sold units), a positive one added them.
 *
 * @param quantity a non-zero number of units, negative to take
 * @param note the operator's note, or {@code null}
 */
public record StockAdjusted(
    String skuId, String adjustmentId, int quantity, AdjustmentReason reason, String note)
    implements SkuEvent {

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
