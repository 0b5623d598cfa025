package io.stockade.query.stock;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockReplenished;
import io.stockade.api.stock.FindStockLevelsQuery;
import io.stockade.api.stock.FindStockQuery;
import io.stockade.api.stock.StockLevel;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.Timestamp;
import org.axonframework.queryhandling.QueryHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Stock per SKU, from the event stream. Runs in a pooled streaming processor whose token is stored
 * in the same database transaction as the rows it changes.
 */
@Component
@ProcessingGroup(StockProjection.PROCESSING_GROUP)
class StockProjection {

  static final String PROCESSING_GROUP = "stock-projection";

  private static final Logger log = LoggerFactory.getLogger(StockProjection.class);

  private final StockLevelRepository stockLevels;

  StockProjection(StockLevelRepository stockLevels) {
    this.stockLevels = stockLevels;
  }

  @EventHandler
  void on(SkuRegistered event, @Timestamp Instant at) {
    stockLevels.save(
        new StockLevelRow(event.skuId(), event.initialStock(), event.perUserLimit(), at));
  }

  @EventHandler
  void on(StockReserved event, @Timestamp Instant at) {
    forEachLine(event.reservationId(), event.lines(), (row, quantity) -> row.reserve(quantity, at));
  }

  @EventHandler
  void on(StockConfirmed event, @Timestamp Instant at) {
    forEachLine(event.reservationId(), event.lines(), (row, quantity) -> row.confirm(quantity, at));
  }

  @EventHandler
  void on(StockReleased event, @Timestamp Instant at) {
    forEachLine(event.reservationId(), event.lines(), (row, quantity) -> row.release(quantity, at));
  }

  @EventHandler
  void on(StockReplenished event, @Timestamp Instant at) {
    stockLevels
        .findById(event.skuId())
        .ifPresentOrElse(
            row -> row.replenish(event.quantity(), at),
            () -> log.warn("Replenishment of unknown SKU {}", event.skuId()));
  }

  private void forEachLine(
      String reservationId, List<ReservationLine> lines, BiConsumer<StockLevelRow, Long> change) {
    for (ReservationLine line : lines) {
      stockLevels
          .findById(line.skuId())
          .ifPresentOrElse(
              row -> change.accept(row, (long) line.quantity()),
              () ->
                  log.warn(
                      "Reservation {} names SKU {}, which the read model does not know",
                      reservationId,
                      line.skuId()));
    }
  }

  @QueryHandler
  Optional<StockLevel> handle(FindStockQuery query) {
    return stockLevels.findById(query.skuId()).map(StockLevelRow::toStockLevel);
  }

  @QueryHandler
  List<StockLevel> handle(FindStockLevelsQuery query) {
    return stockLevels.findAllById(query.skuIds()).stream()
        .map(StockLevelRow::toStockLevel)
        .toList();
  }
}
