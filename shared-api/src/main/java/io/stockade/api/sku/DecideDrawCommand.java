package io.stockade.api.sku;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Records that the draw at {@code opensAt} was decided for the SKU; a repeat changes nothing. */
public record DecideDrawCommand(
    String skuId, Instant opensAt, String seed, long queued, long admitted) {

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return SkuEvent.streamId(skuId);
  }
}
