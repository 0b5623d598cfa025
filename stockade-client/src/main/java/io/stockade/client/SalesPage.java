package io.stockade.client;

import java.util.List;

/** {@code GET /api/sales}: every SKU's stock and sale, the busiest first. */
public record SalesPage(List<Stock> skus, int page, int size, long totalEntries) {}
