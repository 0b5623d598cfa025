package io.stockade.api.sku;

import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Resumes a SKU's paused sale; a repeat changes nothing. */
public record ResumeSaleCommand(String skuId) {

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return SkuEvent.streamId(skuId);
  }
}
