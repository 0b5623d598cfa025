package io.stockade.query.stock;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The audit's reads of {@code stock_ledger}: a SKU's numbers and entries as of an instant, for
 * {@link StockAuditController}. Written by {@link StockRows}.
 */
@Repository
class StockLedger {

  /** The years a DATETIME(6) column is documented to hold, on MySQL and MariaDB: 1000 to 9999. */
  private static final Instant EARLIEST = Instant.parse("1000-01-01T00:00:00Z");

  private static final Instant BEYOND = Instant.parse("+10000-01-01T00:00:00Z");

  /** A SKU's numbers as of an instant, summed from its ledger. */
  record AsOf(long total, long reserved, long sold, long entries) {}

  /** One entry of a SKU's ledger. */
  record Entry(
      String type,
      Instant timestamp,
      long globalIndex,
      String reference,
      long total,
      long reserved,
      long sold) {}

  private final JdbcTemplate jdbc;

  StockLedger(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /** Whether the SKU's registration is in the ledger (at any time). */
  boolean registered(String skuId) {
    return !jdbc.queryForList(
            "select 1 from stock_ledger where sku_id = ? and event_type = 'SkuRegistered' limit 1",
            Integer.class,
            skuId)
        .isEmpty();
  }

  AsOf asOf(String skuId, Instant at) {
    return jdbc.queryForObject(
        "select coalesce(sum(total_change), 0), coalesce(sum(reserved_change), 0),"
            + " coalesce(sum(sold_change), 0), count(*)"
            + " from stock_ledger where sku_id = ? and occurred_at <= ?",
        (rs, i) -> new AsOf(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)),
        skuId,
        StockTables.utc(at));
  }

  /** The ledger up to an instant, oldest first (event time, then global index). */
  List<Entry> ledger(String skuId, Instant at, int page, int size) {
    return jdbc.query(
        "select event_type, occurred_at, global_index, reference, total_change, reserved_change,"
            + " sold_change from stock_ledger where sku_id = ? and occurred_at <= ?"
            + " order by occurred_at, global_index, event_id limit ? offset ?",
        (rs, i) ->
            new Entry(
                rs.getString(1),
                instant(rs, 2),
                rs.getLong(3),
                rs.getString(4),
                rs.getLong(5),
                rs.getLong(6),
                rs.getLong(7)),
        skuId,
        StockTables.utc(at),
        size,
        (long) page * size);
  }

  /**
   * Whether the ledger's times can be compared with an instant: outside the years 1000 to 9999 the
   * database cannot hold it, and a comparison with it matches nothing (year 10000) or is not
   * guaranteed (before the year 1000).
   */
  static boolean holds(Instant instant) {
    return !instant.isBefore(EARLIEST) && instant.isBefore(BEYOND);
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    return rs.getObject(column, LocalDateTime.class).toInstant(ZoneOffset.UTC);
  }
}
