package io.stockade.api.sku;

import java.time.Instant;

/**
 * A SKU's sale was given (or given again) its window: the gate admits its units from {@code
 * opensAt}, by the gate's own clock, until {@code closesAt}.
 *
 * @param closesAt when the sale ends, or {@code null} for no end
 * @param prequeueSeconds how long before {@code opensAt} the pre-queue opens (0: none)
 * @param drawCommitment with a pre-queue, the commitment to the seed of the draw at {@code opensAt}
 *     (hex SHA-256; the same for every SKU opening then, and never changed until the draw reveals
 *     the seed); {@code null} without one, and in events stored before the draw existed
 */
public record SaleScheduled(
    String skuId, Instant opensAt, Instant closesAt, int prequeueSeconds, String drawCommitment)
    implements SkuEvent {

  /** A window without a pre-queue's draw. */
  public SaleScheduled(String skuId, Instant opensAt, Instant closesAt, int prequeueSeconds) {
    this(skuId, opensAt, closesAt, prequeueSeconds, null);
  }

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
