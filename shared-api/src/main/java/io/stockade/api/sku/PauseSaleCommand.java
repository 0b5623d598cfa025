package io.stockade.api.sku;

import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Pauses a SKU's sale; a repeat changes nothing. */
public record PauseSaleCommand(String skuId, String reason) {

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return SkuEvent.streamId(skuId);
  }
}
