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
import java.util.List;
import java.util.Optional;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.ResetHandler;
import org.axonframework.queryhandling.QueryHandler;
import org.springframework.stereotype.Component;

/**
 * Stock per SKU, from the event stream, in a pooled streaming processor with several segments; its
 * token commits in the same transaction as the rows it changes. Each change is recorded once in the
 * SKU's ledger and added to the SKU's row only then ({@link StockLevels}), so a redelivered event
 * counts once, and events of different aggregates may apply in any order. The ledger reads each
 * event's global index from the event store: the token an event comes with may name a later one.
 */
@Component
@ProcessingGroup(StockProjection.PROCESSING_GROUP)
class StockProjection {

  static final String PROCESSING_GROUP = "stock-projection";

  private final StockLevels stockLevels;

  StockProjection(StockLevels stockLevels) {
    this.stockLevels = stockLevels;
  }

  @EventHandler
  void on(SkuRegistered event, EventMessage<?> message) {
    StockLevels.Change change =
        change(message, event.skuId(), event.skuId(), event.initialStock(), 0, 0);
    stockLevels.register(change, event.perUserLimit());
  }

  @EventHandler
  void on(StockReplenished event, EventMessage<?> message) {
    stockLevels.apply(
        change(message, event.skuId(), event.replenishmentId(), event.quantity(), 0, 0));
  }

  @EventHandler
  void on(StockReserved event, EventMessage<?> message) {
    for (ReservationLine line : event.lines()) {
      stockLevels.apply(
          change(message, line.skuId(), event.reservationId(), 0, line.quantity(), 0));
    }
  }

  @EventHandler
  void on(StockConfirmed event, EventMessage<?> message) {
    for (ReservationLine line : event.lines()) {
      stockLevels.apply(
          change(
              message, line.skuId(), event.reservationId(), 0, -line.quantity(), line.quantity()));
    }
  }

  @EventHandler
  void on(StockReleased event, EventMessage<?> message) {
    for (ReservationLine line : event.lines()) {
      stockLevels.apply(
          change(message, line.skuId(), event.reservationId(), 0, -line.quantity(), 0));
    }
  }

  /** A replay starts from nothing. */
  @ResetHandler
  void reset() {
    stockLevels.clear();
  }

  private static StockLevels.Change change(
      EventMessage<?> message,
      String skuId,
      String reference,
      long total,
      long reserved,
      long sold) {
    return new StockLevels.Change(
        skuId,
        message.getIdentifier(),
        message.getTimestamp(),
        message.getPayloadType().getSimpleName(),
        reference,
        total,
        reserved,
        sold);
  }

  @QueryHandler
  Optional<StockLevel> handle(FindStockQuery query) {
    return stockLevels.find(query.skuId());
  }

  @QueryHandler
  List<StockLevel> handle(FindStockLevelsQuery query) {
    return stockLevels.findAll(query.skuIds());
  }
}
