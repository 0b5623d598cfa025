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
 * @param drawCommitment with a pre-queue, the commitment to the seed of the draw at {@code
 *     opensAt}; {@code null} without one
 */
public record ScheduleSaleCommand(
    String skuId,
    Instant opensAt,
    Instant closesAt,
    int prequeueSeconds,
    Instant gateNow,
    String drawCommitment) {

  /** A window without a pre-queue. */
  public ScheduleSaleCommand(
      String skuId, Instant opensAt, Instant closesAt, int prequeueSeconds, Instant gateNow) {
    this(skuId, opensAt, closesAt, prequeueSeconds, gateNow, null);
  }

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return SkuEvent.streamId(skuId);
  }
}
