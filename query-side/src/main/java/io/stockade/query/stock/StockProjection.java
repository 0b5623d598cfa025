package io.stockade.query.stock;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.sku.SkuEvent;
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
 * SKU's ledger and added to the SKU's row only then ({@link StockRows}), so a redelivered event
 * counts once, and events of different aggregates may apply in any order. The ledger reads each
 * event's global index from the event store: the token an event comes with may name a later one.
 */
@Component
@ProcessingGroup(StockProjection.PROCESSING_GROUP)
class StockProjection {

  static final String PROCESSING_GROUP = "stock-projection";

  private final StockRows stockRows;
  private final StockLevels stockLevels;

  StockProjection(StockRows stockRows, StockLevels stockLevels) {
    this.stockRows = stockRows;
    this.stockLevels = stockLevels;
  }

  @EventHandler
  void on(SkuEvent event, EventMessage<?> message) {
    StockChanges.apply(event, message.getIdentifier(), message.getTimestamp(), stockRows);
  }

  @EventHandler
  void on(ReservationEvent event, EventMessage<?> message) {
    StockChanges.apply(event, message.getIdentifier(), message.getTimestamp(), stockRows);
  }

  /** A replay starts from nothing. */
  @ResetHandler
  void reset() {
    stockRows.clear();
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
