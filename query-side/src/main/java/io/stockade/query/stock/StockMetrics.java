package io.stockade.query.stock;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Remaining stock as the read model holds it, with bounded cardinality: the gauge {@code
 * stockade.stock.available} (tag {@code sku}) for the {@code stockade.metrics.stock-skus} SKUs (50)
 * whose stock changed last, which in a sale are the ones being sold, and the gauge {@code
 * stockade.stock.skus} (tag {@code state}: {@code available}, {@code sold-out}) over every SKU.
 * Refreshed every {@code stockade.metrics.refresh-interval}; a SKU that drops out of the most
 * recent ones loses its gauge.
 */
@Component
class StockMetrics {

  private static final Logger log = LoggerFactory.getLogger(StockMetrics.class);

  private final JdbcTemplate jdbc;
  private final int skus;
  private final MultiGauge available;
  private final AtomicLong withStock = new AtomicLong();
  private final AtomicLong soldOut = new AtomicLong();

  StockMetrics(
      JdbcTemplate jdbc,
      MeterRegistry meters,
      @Value("${stockade.metrics.stock-skus:50}") int skus) {
    this.jdbc = jdbc;
    this.skus = skus;
    this.available =
        MultiGauge.builder("stockade.stock.available")
            .description("Units available to reserve, for the SKUs whose stock changed last")
            .baseUnit("units")
            .register(meters);
    Gauge.builder("stockade.stock.skus", withStock, AtomicLong::get)
        .description("SKUs with units available")
        .tag("state", "available")
        .register(meters);
    Gauge.builder("stockade.stock.skus", soldOut, AtomicLong::get)
        .description("SKUs with no unit available")
        .tag("state", "sold-out")
        .register(meters);
  }

  @Scheduled(
      initialDelayString = "0s",
      fixedDelayString = "${stockade.metrics.refresh-interval:15s}")
  void refresh() {
    try {
      List<MultiGauge.Row<?>> rows =
          jdbc.query(
              "select sku_id, total - reserved - sold from stock_level"
                  + " where registered_at is not null order by updated_at desc, sku_id limit ?",
              (rs, i) -> MultiGauge.Row.of(Tags.of("sku", rs.getString(1)), rs.getLong(2)),
              skus);
      available.register(rows, true);
      jdbc.query(
          "select coalesce(sum(total - reserved - sold > 0), 0),"
              + " coalesce(sum(total - reserved - sold <= 0), 0)"
              + " from stock_level where registered_at is not null",
          rs -> {
            withStock.set(rs.getLong(1));
            soldOut.set(rs.getLong(2));
          });
    } catch (DataAccessException e) {
      log.warn("Stock metrics not refreshed: {}", e.getMessage());
    }
  }
}
