package io.stockade.query.decision;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The reads of {@code gate_decision}, the gate's decisions as the command side moves them from
 * Redis (written there only). Times are the {@code decided_at} milliseconds; a range is {@code
 * [from, to)}, {@link Long#MIN_VALUE} and {@link Long#MAX_VALUE} standing for no bound.
 */
@Repository
class GateDecisions {

  /** The stream of one bucket in one epoch, and the time of its oldest row. */
  record Stream(int partition, long epoch, long oldest) {}

  /** A row of the SKU view. */
  record SkuRow(
      long sequence,
      long decidedAt,
      String reservationId,
      String userId,
      int quantity,
      String outcome,
      Long availableAfter,
      int partition) {}

  /** A row of the user view. */
  record UserRow(String skuId, SkuRow row) {}

  /** Where a decision lies in the SKU's order. */
  record Key(long decidedAt, long entrySeq, int partition, long epoch) {}

  private static final String ROW_COLUMNS =
      "sequence, decided_at, reservation_id, user_id, quantity, outcome, available_after,"
          + " gate_partition";

  private static final String SKU_ORDER = "decided_at, entry_seq, gate_partition, epoch";

  private static final String USER_ORDER = "decided_at, entry_seq, sku_id, gate_partition, epoch";

  private final JdbcTemplate jdbc;

  GateDecisions(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * The SKU's streams with their oldest rows: one index seek per stream, each skipping to the next
   * (bucket, epoch), rather than a scan of the SKU's rows.
   */
  List<Stream> streams(String skuId) {
    List<Stream> streams = new ArrayList<>();
    List<Stream> next =
        jdbc.query(
            "select gate_partition, epoch, decided_at from gate_decision"
                + " force index (ix_gate_decision_stream) where sku_id = ?"
                + " order by gate_partition, epoch, decided_at, entry_seq limit 1",
            GateDecisions::stream,
            skuId);
    while (!next.isEmpty()) {
      Stream stream = next.get(0);
      streams.add(stream);
      next =
          jdbc.query(
              "select gate_partition, epoch, decided_at from gate_decision"
                  + " force index (ix_gate_decision_stream) where sku_id = ?"
                  + " and (gate_partition > ? or (gate_partition = ? and epoch > ?))"
                  + " order by gate_partition, epoch, decided_at, entry_seq limit 1",
              GateDecisions::stream,
              skuId,
              stream.partition(),
              stream.partition(),
              stream.epoch());
    }
    return streams;
  }

  /** The stream's rows decided in {@code [from, to)}. */
  long count(String skuId, Stream stream, long from, long to) {
    if (from >= to) {
      return 0;
    }
    return jdbc.queryForObject(
        "select count(*) from gate_decision force index (ix_gate_decision_stream)"
            + " where sku_id = ? and gate_partition = ? and epoch = ?"
            + " and decided_at >= ? and decided_at < ?",
        Long.class,
        skuId,
        stream.partition(),
        stream.epoch(),
        from,
        to);
  }

  /** The stream's rows decided at {@code from} or later, counted up to {@code limit}. */
  long countUpTo(String skuId, Stream stream, long from, long limit) {
    return jdbc.queryForObject(
        "select count(*) from (select 1 from gate_decision force index (ix_gate_decision_stream)"
            + " where sku_id = ? and gate_partition = ? and epoch = ? and decided_at >= ?"
            + " limit ?) counted",
        Long.class,
        skuId,
        stream.partition(),
        stream.epoch(),
        from,
        limit);
  }

  /** A millisecond of a stream and its rows decided then. */
  record Millisecond(long at, long rows) {}

  /**
   * The stream's rows per millisecond from {@code from} on, oldest first, for up to {@code limit}
   * milliseconds: one pass over its index.
   */
  List<Millisecond> perMillisecond(String skuId, Stream stream, long from, int limit) {
    return jdbc.query(
        "select decided_at, count(*) from gate_decision force index (ix_gate_decision_stream)"
            + " where sku_id = ? and gate_partition = ? and epoch = ? and decided_at >= ?"
            + " group by decided_at order by decided_at limit ?",
        (rs, i) -> new Millisecond(rs.getLong(1), rs.getLong(2)),
        skuId,
        stream.partition(),
        stream.epoch(),
        from,
        limit);
  }

  /** The time of the stream's oldest row, if it has any. */
  Optional<Long> oldest(String skuId, int partition, long epoch) {
    return jdbc
        .queryForList(
            "select decided_at from gate_decision force index (ix_gate_decision_stream)"
                + " where sku_id = ? and gate_partition = ? and epoch = ?"
                + " order by decided_at, entry_seq limit 1",
            Long.class,
            skuId,
            partition,
            epoch)
        .stream()
        .findFirst();
  }

  /**
   * Rows of the SKU decided in {@code [from, to)}, in the SKU's order, from the {@code offset}-th
   * on.
   */
  List<SkuRow> page(String skuId, long from, long to, long offset, int limit) {
    return jdbc.query(
        "select "
            + ROW_COLUMNS
            + " from gate_decision where sku_id = ? and decided_at >= ? and decided_at < ?"
            + " order by "
            + SKU_ORDER
            + " limit ? offset ?",
        (rs, i) -> row(rs, 0),
        skuId,
        from,
        to,
        limit,
        offset);
  }

  /**
   * The first decision of the SKU in {@code [from, to)} that left no unit available (the first
   * sell-out, of a bucket for a SKU in buckets): a scan in the SKU's order up to it.
   */
  Optional<Key> firstSoldOut(String skuId, long from, long to) {
    return jdbc
        .query(
            "select decided_at, entry_seq, gate_partition, epoch from gate_decision"
                + " where sku_id = ? and decided_at >= ? and decided_at < ? and available_after = 0"
                + " order by "
                + SKU_ORDER
                + " limit 1",
            (rs, i) -> new Key(rs.getLong(1), rs.getLong(2), rs.getInt(3), rs.getLong(4)),
            skuId,
            from,
            to)
        .stream()
        .findFirst();
  }

  /** Rows of the SKU decided in the same millisecond as {@code key} and ordered before it. */
  long before(String skuId, Key key) {
    return jdbc.queryForObject(
        "select count(*) from gate_decision where sku_id = ? and decided_at = ?"
            + " and (entry_seq < ? or (entry_seq = ?"
            + " and (gate_partition < ? or (gate_partition = ? and epoch < ?))))",
        Long.class,
        skuId,
        key.decidedAt(),
        key.entrySeq(),
        key.entrySeq(),
        key.partition(),
        key.partition(),
        key.epoch());
  }

  /** The user's decisions in {@code [from, to)}, every SKU's. */
  long userCount(String userId, long from, long to) {
    return jdbc.queryForObject(
        "select count(*) from gate_decision force index (ix_gate_decision_user)"
            + " where user_id = ? and decided_at >= ? and decided_at < ?",
        Long.class,
        userId,
        from,
        to);
  }

  /**
   * One page of the user's decisions in {@code [from, to)}: its keys found (and the offset skipped)
   * in the user's index alone, then only those rows read.
   */
  List<UserRow> userPage(String userId, long from, long to, long offset, int limit) {
    return jdbc.query(
        "select d.sku_id, d.sequence, d.decided_at, d.reservation_id, d.user_id, d.quantity,"
            + " d.outcome, d.available_after, d.gate_partition"
            + " from (select sku_id, decided_at, entry_seq, gate_partition, epoch"
            + " from gate_decision force index (ix_gate_decision_user)"
            + " where user_id = ? and decided_at >= ? and decided_at < ?"
            + " order by "
            + USER_ORDER
            + " limit ? offset ?) k"
            + " join gate_decision d on d.sku_id = k.sku_id and d.decided_at = k.decided_at"
            + " and d.entry_seq = k.entry_seq and d.gate_partition = k.gate_partition"
            + " and d.epoch = k.epoch"
            + " order by d.decided_at, d.entry_seq, d.sku_id, d.gate_partition, d.epoch",
        (rs, i) -> new UserRow(rs.getString(1), row(rs, 1)),
        userId,
        from,
        to,
        limit,
        offset);
  }

  private static Stream stream(ResultSet rs, int row) throws SQLException {
    return new Stream(rs.getInt(1), rs.getLong(2), rs.getLong(3));
  }

  private static SkuRow row(ResultSet rs, int skip) throws SQLException {
    return new SkuRow(
        rs.getLong(skip + 1),
        rs.getLong(skip + 2),
        rs.getString(skip + 3),
        rs.getString(skip + 4),
        rs.getInt(skip + 5),
        rs.getString(skip + 6),
        rs.getObject(skip + 7, Long.class),
        rs.getInt(skip + 8));
  }
}
