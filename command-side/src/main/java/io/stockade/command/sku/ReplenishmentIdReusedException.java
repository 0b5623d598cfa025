package io.stockade.command.sku;

/** The replenishment id was applied before with another quantity. */
class ReplenishmentIdReusedException extends RuntimeException {

  private final int appliedQuantity;

  ReplenishmentIdReusedException(String replenishmentId, int appliedQuantity) {
    super("Replenishment " + replenishmentId + " was applied with quantity " + appliedQuantity);
    this.appliedQuantity = appliedQuantity;
  }

  int appliedQuantity() {
    return appliedQuantity;
  }
}
