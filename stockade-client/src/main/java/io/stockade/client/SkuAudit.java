package io.stockade.client;

import java.time.Instant;
import java.util.List;

/** {@code GET /api/audit/skus/{skuId}}: a SKU as it was at {@code at}, and a page of its ledger. */
public record SkuAudit(
    String skuId,
    Instant at,
    long total,
    long available,
    long reserved,
    long sold,
    Integer perUserLimit,
    SaleState sale,
    List<LedgerEntry> ledger,
    int page,
    int size,
    long totalEntries) {

  /**
   * One event's change to the SKU.
   *
   * @param globalIndex the event's position in the event store
   * @param reference the reservation, replenishment, adjustment or SKU it belongs to
   */
  public record LedgerEntry(
      String type, Instant timestamp, long globalIndex, String reference, Change change) {}

  /** Added to each number by one event (negative: taken away). */
  public record Change(long total, long available, long reserved, long sold) {}
}
