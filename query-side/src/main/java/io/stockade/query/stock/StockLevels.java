package io.stockade.query.stock;

import io.stockade.api.stock.StockLevel;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Repository;

/** The stock read model's tables: {@code stock_level} and {@code stock_ledger}. */
@Repository
class StockLevels {

  /** What one event changes of one SKU. */
  record Change(
      String skuId,
      String eventId,
      long globalIndex,
      Instant occurredAt,
      String eventType,
      String reference,
      long total,
      long reserved,
      long sold) {}

  private static final String PENDING = StockLevels.class.getName() + ".pending";

  private static final String COLUMNS = "sku_id, total, reserved, sold, per_user_limit, updated_at";

  private final JdbcTemplate jdbc;
  private final NamedParameterJdbcTemplate named;

  StockLevels(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
    this.named = new NamedParameterJdbcTemplate(jdbc);
  }

  /**
   * Records a change in the ledger and adds it to the SKU's row, unless it was applied before.
   * Inside a unit of work (the projection's batch), the rows' changes are summed per SKU and
   * written once, just before the batch commits, in SKU order: one update per SKU and batch, and
   * segments that lock the same rows lock them in the same order (no deadlocks).
   */
  void apply(Change change) {
    if (!ledger(change)) {
      return;
    }
    if (CurrentUnitOfWork.isStarted()) {
      pending().merge(change.skuId(), Pending.of(change, null, false), Pending::plus);
      return;
    }
    add(change.skuId(), Pending.of(change, null, false));
  }

  /** Applies a registration: its initial stock, and the SKU becomes known. */
  void register(Change change, Integer perUserLimit) {
    if (!ledger(change)) {
      return;
    }
    if (CurrentUnitOfWork.isStarted()) {
      pending().merge(change.skuId(), Pending.of(change, perUserLimit, true), Pending::plus);
      return;
    }
    add(change.skuId(), Pending.of(change, perUserLimit, true));
  }

  /** Changes of one SKU's row not written yet. */
  private record Pending(
      long total,
      long reserved,
      long sold,
      Instant latest,
      boolean registers,
      Integer perUserLimit,
      Instant registeredAt) {

    static Pending of(Change change, Integer perUserLimit, boolean registers) {
      return new Pending(
          change.total(),
          change.reserved(),
          change.sold(),
          change.occurredAt(),
          registers,
          perUserLimit,
          registers ? change.occurredAt() : null);
    }

    Pending plus(Pending other) {
      boolean otherRegisters = other.registers();
      return new Pending(
          total + other.total(),
          reserved + other.reserved(),
          sold + other.sold(),
          latest.isAfter(other.latest()) ? latest : other.latest(),
          registers || otherRegisters,
          otherRegisters ? other.perUserLimit() : perUserLimit,
          otherRegisters ? other.registeredAt() : registeredAt);
    }
  }

  private SortedMap<String, Pending> pending() {
    UnitOfWork<?> unitOfWork = CurrentUnitOfWork.get().root();
    return unitOfWork.getOrComputeResource(
        PENDING,
        key -> {
          SortedMap<String, Pending> changes = new TreeMap<>();
          unitOfWork.onPrepareCommit(u -> changes.forEach(this::add));
          return changes;
        });
  }

  private void add(String skuId, Pending change) {
    Timestamp latest = Timestamp.from(change.latest());
    if (change.registers()) {
      Timestamp registeredAt = Timestamp.from(change.registeredAt());
      jdbc.update(
          "insert into stock_level"
              + " (sku_id, total, reserved, sold, per_user_limit, registered_at, updated_at)"
              + " values (?, ?, ?, ?, ?, ?, ?)"
              + " on duplicate key update total = total + ?, reserved = reserved + ?,"
              + " sold = sold + ?, per_user_limit = ?, registered_at = ?,"
              + " updated_at = greatest(updated_at, ?)",
          skuId,
          change.total(),
          change.reserved(),
          change.sold(),
          change.perUserLimit(),
          registeredAt,
          latest,
          change.total(),
          change.reserved(),
          change.sold(),
          change.perUserLimit(),
          registeredAt,
          latest);
      return;
    }
    jdbc.update(
        "insert into stock_level (sku_id, total, reserved, sold, updated_at)"
            + " values (?, ?, ?, ?, ?)"
            + " on duplicate key update total = total + ?, reserved = reserved + ?,"
            + " sold = sold + ?, updated_at = greatest(updated_at, ?)",
        skuId,
        change.total(),
        change.reserved(),
        change.sold(),
        latest,
        change.total(),
        change.reserved(),
        change.sold(),
        latest);
  }

  /** False when the ledger already holds this change: the event was applied before. */
  private boolean ledger(Change change) {
    try {
      jdbc.update(
          "insert into stock_ledger (sku_id, event_id, global_index, occurred_at, event_type,"
              + " reference, total_change, reserved_change, sold_change)"
              + " values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
          change.skuId(),
          change.eventId(),
          change.globalIndex(),
          Timestamp.from(change.occurredAt()),
          change.eventType(),
          change.reference(),
          change.total(),
          change.reserved(),
          change.sold());
      return true;
    } catch (DuplicateKeyException appliedBefore) {
      return false;
    }
  }

  Optional<StockLevel> find(String skuId) {
    return jdbc
        .query(
            "select "
                + COLUMNS
                + " from stock_level where sku_id = ? and registered_at is not null",
            StockLevels::level,
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
        StockLevels::level);
  }

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
        Timestamp.from(at));
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
                rs.getTimestamp(2).toInstant(),
                rs.getLong(3),
                rs.getString(4),
                rs.getLong(5),
                rs.getLong(6),
                rs.getLong(7)),
        skuId,
        Timestamp.from(at),
        size,
        (long) page * size);
  }

  void clear() {
    jdbc.update("delete from stock_ledger");
    jdbc.update("delete from stock_level");
  }

  private static StockLevel level(ResultSet rs, int row) throws SQLException {
    long total = rs.getLong("total");
    long reserved = rs.getLong("reserved");
    long sold = rs.getLong("sold");
    Integer limit = rs.getObject("per_user_limit", Integer.class);
    return new StockLevel(
        rs.getString("sku_id"),
        total,
        total - reserved - sold,
        reserved,
        sold,
        limit,
        rs.getTimestamp("updated_at").toInstant());
  }
}
