package io.stockade.api.sku;

import org.axonframework.modelling.command.TargetAggregateIdentifier;

/** Adds sellable stock to a SKU, once per replenishment id. */
public record ReplenishStockCommand(
    @TargetAggregateIdentifier String skuId, String replenishmentId, int quantity) {}
