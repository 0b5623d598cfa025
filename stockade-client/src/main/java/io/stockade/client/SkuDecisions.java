package io.stockade.client;

import java.util.List;

/**
 * {@code GET /api/audit/skus/{skuId}/decisions}.
 *
 * @param sellout with {@code around=sellout} only: the position of the first decision that left no
 *     unit available, null when there is none (or not asked)
 */
public record SkuDecisions(
    String skuId, List<Decision> decisions, long page, int size, long total, Long sellout) {}
