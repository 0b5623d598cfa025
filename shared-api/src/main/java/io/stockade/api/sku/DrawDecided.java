package io.stockade.api.sku;

/**
 * The pre-queue's draw at {@code opensAt} was decided for this SKU: every reservation queued for it
 * was decided in the draw order, and the seed is revealed. From this event on, reservations
 * arriving after {@code opensAt} are decided as they come.
 *
 * @param seed the draw's seed, hex (SHA-256 of its bytes is the commitment {@link SaleScheduled}
 *     carried)
 * @param queued how many queued reservations had a line of this SKU
 * @param admitted how many of those were admitted
 */
public record DrawDecided(
    String skuId, java.time.Instant opensAt, String seed, long queued, long admitted)
    implements SkuEvent {

  @Override
  public void applyTo(Fold fold) {
    fold.on(this);
  }
}
