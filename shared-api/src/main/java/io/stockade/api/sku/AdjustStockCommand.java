package io.stockade.api.sku;

import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Corrects a SKU's stock by a non-zero number of units, once per adjustment id. */
public record AdjustStockCommand(
    String skuId, String adjustmentId, int quantity, AdjustmentReason reason, String note) {

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return SkuEvent.streamId(skuId);
  }
}
