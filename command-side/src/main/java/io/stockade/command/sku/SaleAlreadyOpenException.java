package io.stockade.command.sku;

import java.time.Instant;

/** A schedule change that would move the opening of a sale that has opened. */
class SaleAlreadyOpenException extends RuntimeException {

  private final transient Instant openedAt;

  /**
   * @param openedAt when it opened, or {@code null} for a SKU on sale from its registration
   */
  SaleAlreadyOpenException(String skuId, Instant openedAt) {
    super("The sale of SKU " + skuId + " has opened");
    this.openedAt = openedAt;
  }

  Instant openedAt() {
    return openedAt;
  }
}
