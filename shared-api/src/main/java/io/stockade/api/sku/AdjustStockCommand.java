package io.stockade.api.sku;

import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * Corrects a SKU's stock by a non-zero number of units, once per adjustment id.
 *
 * @param gateEpoch for a negative adjustment the gate has taken, the epoch of the gate that took
 *     it: its event is stored only while the gate is still that one (a rebuilt gate does not hold
 *     the take); {@code null} for one the gate has not taken first
 */
public record AdjustStockCommand(
    String skuId,
    String adjustmentId,
    int quantity,
    AdjustmentReason reason,
    String note,
    Long gateEpoch) {

  /** An adjustment the gate has not taken first. */
  public AdjustStockCommand(
      String skuId, String adjustmentId, int quantity, AdjustmentReason reason, String note) {
    this(skuId, adjustmentId, quantity, reason, note, null);
  }

  /** The same adjustment, taken by the gate of {@code epoch}. */
  public AdjustStockCommand takenIn(long epoch) {
    return new AdjustStockCommand(skuId, adjustmentId, quantity, reason, note, epoch);
  }

  /** The stream this command is for, in its aggregate type's namespace. */
  @TargetAggregateIdentifier
  public String streamId() {
    return SkuEvent.streamId(skuId);
  }
}
