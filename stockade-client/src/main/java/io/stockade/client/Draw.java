package io.stockade.client;

import java.time.Instant;
import java.util.List;

/**
 * {@code GET /api/skus/{skuId}/draw}: a pre-queue's draw.
 *
 * @param seed hex, null until the draw is decided
 * @param order the queued reservation ids in draw order, empty until decided
 */
public record Draw(
    String skuId,
    Instant opensAt,
    String drawCommitment,
    String seed,
    long queued,
    long admitted,
    List<String> order) {}
