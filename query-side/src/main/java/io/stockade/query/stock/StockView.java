package io.stockade.query.stock;

import io.stockade.api.sku.SaleStatus;
import io.stockade.api.stock.StockLevel;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A SKU's stock as this service's HTTP API shows it: its {@link StockLevel}, whose sale also tells
 * the length of its pre-queue.
 */
record StockView(
    String skuId,
    long total,
    long available,
    long reserved,
    long sold,
    Integer perUserLimit,
    Instant updatedAt,
    Sale sale) {

  /**
   * The sale's {@link SaleStatus}, and its pre-queue.
   *
   * @param queued the reservations with a line of this SKU waiting for the pre-queue's draw
   */
  record Sale(
      SaleStatus.State state,
      Instant opensAt,
      Instant closesAt,
      int prequeueSeconds,
      String pausedReason,
      @Schema(
              description =
                  "The reservations with a line of this SKU waiting in its pre-queue for the"
                      + " draw; 0 when none")
          long queued) {}

  static StockView of(StockLevel level, long queued) {
    SaleStatus sale = level.sale();
    return new StockView(
        level.skuId(),
        level.total(),
        level.available(),
        level.reserved(),
        level.sold(),
        level.perUserLimit(),
        level.updatedAt(),
        sale == null
            ? null
            : new Sale(
                sale.state(),
                sale.opensAt(),
                sale.closesAt(),
                sale.prequeueSeconds(),
                sale.pausedReason(),
                queued));
  }

  /** The levels with the lengths of their queues ({@link QueueLengths#of}). */
  static List<StockView> of(List<StockLevel> levels, Map<String, Long> queued) {
    return levels.stream().map(level -> of(level, queued.getOrDefault(level.skuId(), 0L))).toList();
  }
}
