package io.stockade.client;

/**
 * The body of {@code POST /api/skus/{skuId}/adjustments}, idempotent by its id.
 *
 * @param quantity non-zero: units added, or (negative) taken from the available stock
 * @param note null, or at most 200 characters
 */
public record Adjustment(String adjustmentId, int quantity, Reason reason, String note) {

  /** Why the stock changes. */
  public enum Reason {
    DAMAGED,
    CORRECTION,
    SHRINKAGE,
    RETURNED,
    OTHER
  }
}
