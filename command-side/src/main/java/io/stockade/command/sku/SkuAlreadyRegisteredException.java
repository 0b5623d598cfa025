package io.stockade.command.sku;

import io.stockade.api.sku.SkuState;

/** The SKU exists with other values than the ones asked for. */
class SkuAlreadyRegisteredException extends RuntimeException {

  private final SkuState existing;

  SkuAlreadyRegisteredException(SkuState existing) {
    super("SKU " + existing.skuId() + " is already registered with other values");
    this.existing = existing;
  }

  SkuState existing() {
    return existing;
  }
}
