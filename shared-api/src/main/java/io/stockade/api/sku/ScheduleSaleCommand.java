package io.stockade.api.sku;

import java.time.Instant;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * Gives a SKU's sale its window. Allowed until the sale opens; after that only {@code closesAt} may
 * change. A SKU without a schedule is on sale from its registration.
 *
 * @param closesAt when the sale ends, or {@code null} for no end
 * @param prequeueSeconds how long before {@code opensAt} the pre-queue opens (0: none)
 * @param gateNow the gate's clock when the command was sent: the sale has opened if {@code opensAt}
 *     is at or before it (the gate decides by its own clock, not this instance's)
 */
public record ScheduleSaleCommand(
    String skuId, Instant opensAt, Instant closesAt, int prequeueSeconds, Instant gateNow) {

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return SkuEvent.streamId(skuId);
  }
}
