package io.stockade.api.sku;

import java.time.Instant;

/**
 * A SKU's sale and where it stands at an instant: the gate's view by the gate's clock (the command
 * side's {@code GET /api/skus/{skuId}}), the record's by the reader's (the query side's stock).
 *
 * @param opensAt null for a SKU on sale from its registration
 * @param closesAt null for no end
 * @param prequeueSeconds how long before {@code opensAt} the pre-queue opens (0: none)
 * @param pausedReason null when not paused, or when the pause gave no reason
 */
public record SaleStatus(
    State state, Instant opensAt, Instant closesAt, int prequeueSeconds, String pausedReason) {

  /** Where a SKU's sale stands. */
  public enum State {
    /** Before the sale (and its pre-queue) opens. */
    SCHEDULED,
    /**
     * In the pre-queue: from {@code opensAt} minus {@code prequeueSeconds} until {@code opensAt}.
     */
    PREQUEUE,
    OPEN,
    /** Open by its window, but paused. */
    PAUSED,
    /** At or after {@code closesAt}. */
    CLOSED
  }

  /**
   * A sale's state at an instant, checked in the order the gate's reserve checks it: not open yet,
   * closed, paused.
   */
  public static SaleStatus at(
      Instant now,
      Instant opensAt,
      Instant closesAt,
      int prequeueSeconds,
      boolean paused,
      String pausedReason) {
    State state;
    if (opensAt != null && now.isBefore(opensAt)) {
      state =
          prequeueSeconds > 0 && !now.isBefore(opensAt.minusSeconds(prequeueSeconds))
              ? State.PREQUEUE
              : State.SCHEDULED;
    } else if (closesAt != null && !now.isBefore(closesAt)) {
      state = State.CLOSED;
    } else {
      state = paused ? State.PAUSED : State.OPEN;
    }
    return new SaleStatus(state, opensAt, closesAt, prequeueSeconds, paused ? pausedReason : null);
  }
}
