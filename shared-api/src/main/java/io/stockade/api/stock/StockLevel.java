package io.stockade.api.stock;

import io.stockade.api.sku.SaleStatus;
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
    SaleStatus sale) {}
