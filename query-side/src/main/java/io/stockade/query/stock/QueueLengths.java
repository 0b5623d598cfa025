package io.stockade.query.stock;

import io.stockade.api.stock.StockLevel;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * How many reservations wait in each SKU's pre-queue: the rows of {@code sku_queue}, which the
 * reservation projection keeps from {@code ReservationQueued} (a row per SKU of its lines) until
 * {@code ReservationDrawn}.
 */
@Repository
class QueueLengths {

  private final NamedParameterJdbcTemplate named;

  QueueLengths(NamedParameterJdbcTemplate named) {
    this.named = named;
  }

  /** The length of each SKU's queue that has one; a SKU missing has none. */
  Map<String, Long> of(Collection<String> skuIds) {
    Map<String, Long> lengths = new HashMap<>();
    if (skuIds.isEmpty()) {
      return lengths;
    }
    named.query(
        "select sku_id, count(*) from sku_queue where sku_id in (:ids) group by sku_id",
        Map.of("ids", skuIds),
        rs -> {
          lengths.put(rs.getString(1), rs.getLong(2));
        });
    return lengths;
  }

  /** The levels as the HTTP API shows them, with the lengths of their queues. */
  List<StockView> views(List<StockLevel> levels) {
    return StockView.of(levels, of(levels.stream().map(StockLevel::skuId).toList()));
  }
}
