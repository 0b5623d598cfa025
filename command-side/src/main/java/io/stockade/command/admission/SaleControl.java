package io.stockade.command.admission;

import io.stockade.api.sku.SaleStatus;
import java.time.Instant;
import java.util.Optional;

/**
 * A SKU's sale in the gate: its schedule and pre-queue, its pause, its per-user limit, and its
 * state as the gate sees it. Each write carries the version of its event and is applied to every
 * bucket of the SKU or completed by a repeat.
 */
public interface SaleControl {

  /**
   * Writes the sale's schedule into every bucket of the SKU, if {@code version} (the sequence
   * number of its event in the SKU's stream) is newer than the schedule's stored one; answers once
   * every bucket holds it. From then on reserve refuses the SKU before {@code opensAt} and from
   * {@code closesAt} on, by the gate's clock (Redis {@code TIME}).
   *
   * @param opensAt null for no bound
   * @param closesAt null for no bound
   * @param prequeueSeconds the pre-queue before {@code opensAt} (0: none): reserve answers QUEUED
   *     in it, and from {@code opensAt} DRAW_IN_PROGRESS until {@link #drawn} marks its draw
   *     decided
   */
  SaleWrite schedule(
      String skuId, long version, Instant opensAt, Instant closesAt, int prequeueSeconds);

  /** {@link #schedule(String, long, Instant, Instant, int)} without a pre-queue. */
  default SaleWrite schedule(String skuId, long version, Instant opensAt, Instant closesAt) {
    return schedule(skuId, version, opensAt, closesAt, 0);
  }

  /**
   * Marks the pre-queue's draw at {@code opensAt} decided for the SKU in every bucket (version: the
   * sequence number of its {@code DrawDecided}): from then on reservations after {@code opensAt}
   * are decided as they arrive.
   */
  SaleWrite drawn(String skuId, long version, Instant opensAt);

  /**
   * Pauses ({@code paused}) or resumes the SKU's sale in every bucket, if {@code version} is newer
   * than the pause's stored one; answers once every bucket holds it. While paused reserve refuses
   * the SKU; confirm, release and extend are not affected.
   */
  SaleWrite pause(String skuId, long version, boolean paused);

  /**
   * Changes the per-user limit (null: none) in every bucket, if {@code version} is newer than the
   * limit's stored one. A user holding more keeps the units and is refused until under it.
   */
  SaleWrite limit(String skuId, long version, Integer perUserLimit);

  /** The outcome of a sale state write. */
  enum SaleWrite {
    /** Written in at least one bucket; every bucket now holds that version or a newer one. */
    APPLIED,
    /** Every bucket held that version or a newer one already; nothing changed. */
    STALE,
    UNKNOWN_SKU,
    /** Not every bucket could be written; a repeat with the same version completes it. */
    UNAVAILABLE
  }

  /**
   * The SKU's counters summed over its buckets and its sale state, with the gate's clock now; empty
   * for an unknown SKU.
   *
   * @throws GateUnavailableException when the gate cannot be reached
   */
  Optional<SkuState> state(String skuId);

  /**
   * A SKU as the gate sees it: {@code total} is available + reserved + sold, {@code perUserLimit}
   * null for none, {@code opensAt}/{@code closesAt} null for no bound, {@code now} the gate's clock
   * (the Redis {@code TIME} of the SKU's home bucket, by which reserve decides).
   */
  record SkuState(
      String skuId,
      long total,
      long available,
      long reserved,
      long sold,
      Long perUserLimit,
      Instant opensAt,
      Instant closesAt,
      boolean paused,
      Instant now) {

    /**
     * The sale now, in the order reserve checks it (not open, closed, paused), with the pre-queue
     * and the pause's reason that the record keeps and the gate does not.
     */
    public SaleStatus sale(int prequeueSeconds, String pausedReason) {
      return SaleStatus.at(now, opensAt, closesAt, prequeueSeconds, paused, pausedReason);
    }
  }
}
