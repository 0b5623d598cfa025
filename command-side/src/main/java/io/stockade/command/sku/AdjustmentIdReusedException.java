package io.stockade.command.sku;

/** An adjustment id already used with other content: nothing was changed. */
class AdjustmentIdReusedException extends RuntimeException {

  private final long recordedQuantity;

  AdjustmentIdReusedException(String adjustmentId, long recordedQuantity) {
    super("Adjustment " + adjustmentId + " was made with other content", null, false, false);
    this.recordedQuantity = recordedQuantity;
  }

  /** The quantity the id was used with. */
  long recordedQuantity() {
    return recordedQuantity;
  }
}
