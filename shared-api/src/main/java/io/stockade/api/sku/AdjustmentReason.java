package io.stockade.api.sku;

/** Why a SKU's stock was adjusted. */
public enum AdjustmentReason {
  DAMAGED,
  CORRECTION,
  SHRINKAGE,
  RETURNED,
  OTHER
}
