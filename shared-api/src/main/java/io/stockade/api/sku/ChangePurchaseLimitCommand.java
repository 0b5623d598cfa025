package io.stockade.api.sku;

import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * Changes the units one user may hold of a SKU ({@code null}: no limit); a repeat changes nothing.
 */
public record ChangePurchaseLimitCommand(String skuId, Integer perUserLimit) {

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return SkuEvent.streamId(skuId);
  }
}
