package io.stockade.api.stock;

import java.time.Instant;

/**
 * One SKU's stock, built from the event stream: {@code total = available + reserved + sold}.
 *
 * @param perUserLimit units one user may hold, or {@code null} for no limit
 * @param sale the SKU's sale as its events set it, its state by the reader's clock
 */
public record StockLevel(
    String skuId,
    long total,
    long available,
    long reserved,
    long sold,
    Integer perUserLimit,
    Instant updatedAt,
    Sale sale) {

  /** Where a SKU's sale stands. */
  public enum SaleState {
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
   * A SKU's sale.
   *
   * @param opensAt null for a SKU on sale from its registration
   * @param closesAt null for no end
   * @param prequeueSeconds how long before {@code opensAt} the pre-queue opens (0: none)
   * @param pausedReason null when not paused, or when the pause gave no reason
   */
  public record Sale(
      SaleState state,
      Instant opensAt,
      Instant closesAt,
      int prequeueSeconds,
      String pausedReason) {

    /**
     * A sale's state at an instant, checked in the order the gate checks it: not open yet, closed,
     * paused.
     */
    public static Sale at(
        Instant now,
        Instant opensAt,
        Instant closesAt,
        int prequeueSeconds,
        boolean paused,
        String pausedReason) {
      SaleState state;
      if (opensAt != null && now.isBefore(opensAt)) {
        state =
            prequeueSeconds > 0 && !now.isBefore(opensAt.minusSeconds(prequeueSeconds))
                ? SaleState.PREQUEUE
                : SaleState.SCHEDULED;
      } else if (closesAt != null && !now.isBefore(closesAt)) {
        state = SaleState.CLOSED;
      } else {
        state = paused ? SaleState.PAUSED : SaleState.OPEN;
      }
      return new Sale(state, opensAt, closesAt, prequeueSeconds, paused ? pausedReason : null);
    }
  }
}
