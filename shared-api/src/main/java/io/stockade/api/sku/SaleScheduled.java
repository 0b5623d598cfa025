package io.stockade.api.sku;

import java.time.Instant;

/**
 * A SKU's sale was given (or given again) its window: the gate admits its units from {@code
 * opensAt}, by the gate's own clock, until {@code closesAt}.
 *
 * @param closesAt when the sale ends, or {@code null} for no end
 * @param prequeueSeconds how long before {@code opensAt} the pre-queue opens (0: none)
 */
public record SaleScheduled(String skuId, Instant opensAt, Instant closesAt, int prequeueSeconds)
    implements SkuEvent {

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
