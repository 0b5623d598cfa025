package io.stockade.query.stock;

import io.stockade.api.sku.SaleStatus;
import io.stockade.api.stock.StockLevel;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The reads of {@code stock_level} for the queries, the controllers and the streams: the SKUs'
 * stock and sale as of now, always from the model's own table. Written by {@link StockRows}; a
 * SKU's past is {@link StockLedger}'s.
 */
@Repository
class StockLevels {

  private static final String COLUMNS =
      "sku_id, total, reserved, sold, per_user_limit, opens_at, closes_at, prequeue_seconds,"
          + " paused, paused_reason, updated_at";

  private final Clock clock;
  private final JdbcTemplate jdbc;
  private final NamedParameterJdbcTemplate named;

  StockLevels(JdbcTemplate jdbc, Clock clock) {
    this.jdbc = jdbc;
    this.clock = clock;
    this.named = new NamedParameterJdbcTemplate(jdbc);
  }

  Optional<StockLevel> find(String skuId) {
    return jdbc
        .query(
            "select "
                + COLUMNS
                + " from stock_level where sku_id = ? and registered_at is not null",
            this::level,
            skuId)
        .stream()
        .findFirst();
  }

  List<StockLevel> findAll(Collection<String> skuIds) {
    if (skuIds.isEmpty()) {
      return List.of();
    }
    return named.query(
        "select "
            + COLUMNS
            + " from stock_level where sku_id in (:ids) and registered_at is not null"
            + " order by sku_id",
        Map.of("ids", skuIds),
        this::level);
  }

  /** One page of every known SKU, the busiest (most events) first, then by SKU id. */
  List<StockLevel> busiest(int page, int size) {
    return jdbc.query(
        "select "
            + COLUMNS
            + " from stock_level where registered_at is not null"
            + " order by activity desc, sku_id limit ? offset ?",
        this::level,
        size,
        (long) page * size);
  }

  /** How many SKUs are known. */
  long known() {
    return jdbc.queryForObject(
        "select count(*) from stock_level where registered_at is not null", Long.class);
  }

  /** A SKU's row, its sale's state by this service's clock. */
  private StockLevel level(ResultSet rs, int row) throws SQLException {
    long total = rs.getLong("total");
    long reserved = rs.getLong("reserved");
    long sold = rs.getLong("sold");
    Integer limit = rs.getObject("per_user_limit", Integer.class);
    SaleStatus sale =
        SaleStatus.at(
            clock.instant(),
            nullableInstant(rs, "opens_at"),
            nullableInstant(rs, "closes_at"),
            rs.getInt("prequeue_seconds"),
            rs.getBoolean("paused"),
            rs.getString("paused_reason"));
    return new StockLevel(
        rs.getString("sku_id"),
        total,
        total - reserved - sold,
        reserved,
        sold,
        limit,
        nullableInstant(rs, "updated_at"),
        sale);
  }

  private static Instant nullableInstant(ResultSet rs, String column) throws SQLException {
    LocalDateTime value = rs.getObject(column, LocalDateTime.class);
    return value == null ? null : value.toInstant(ZoneOffset.UTC);
  }
}
