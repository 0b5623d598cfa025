package io.stockade.api.sku;

import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Adds sellable stock to a SKU, once per replenishment id. */
public record ReplenishStockCommand(String skuId, String replenishmentId, int quantity) {

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return SkuEvent.streamId(skuId);
  }
}
