package io.stockade.api.sku;

import org.axonframework.modelling.command.TargetAggregateIdentifier;

/**
 * Registers a SKU with its initial stock. Repeating it with the same values changes nothing.
 *
 * @param perUserLimit units one user may hold (reserved or bought), or {@code null} for no limit
 */
public record RegisterSkuCommand(
    @TargetAggregateIdentifier String skuId, int initialStock, Integer perUserLimit) {}
