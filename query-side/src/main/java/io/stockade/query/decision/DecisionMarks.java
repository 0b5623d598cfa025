package io.stockade.query.decision;

import io.stockade.query.decision.GateDecisions.Stream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Marks along each decision stream of a SKU (its rows of one bucket in one epoch), about every
 * {@code stockade.decisions.mark-interval} rows: at each mark, the millisecond it stands at and how
 * many of the stream's rows lie before it (its position, from an origin of the stream's own). With
 * them a SKU's rows before any instant are counted from the nearest mark, not from its first row,
 * so that a page deep in a million decisions, and the total, cost about as much as the first.
 *
 * <p>What makes a mark lasting: the command side writes a stream in the order the gate decided it
 * (one writer per partition at a time), so a stream only grows after its newest row, and the
 * retention removes its oldest rows first. A mark is written only at the millisecond of a row that
 * exists, so no row will come before it any more, and the rows between two marks are their
 * positions' difference for as long as both stand after the stream's oldest row; a mark at or
 * before it (the retention may have taken part of that millisecond) is left out and deleted at the
 * next extension. Counted from an origin of their own, positions need no renumbering when the
 * oldest rows go.
 *
 * <p>Marks are extended when a read finds more than two intervals' rows after a stream's last one
 * (or marks the retention left behind, or marks of a stream without rows), by that read, in
 * transactions of its own, each holding the stream's row of {@code gate_decision_mark_stream} so
 * that one instance at a time extends a stream.
 */
@Repository
class DecisionMarks {

  /** A mark of one stream. */
  record Mark(int partition, long epoch, long at, long position) {}

  /** Milliseconds of a stream read per transaction while it is extended. */
  private static final int MILLISECONDS_PER_TRANSACTION = 100_000;

  private final JdbcTemplate jdbc;
  private final GateDecisions decisions;
  private final TransactionTemplate extension;
  private final int interval;

  DecisionMarks(
      JdbcTemplate jdbc,
      GateDecisions decisions,
      PlatformTransactionManager transactions,
      @Value("${stockade.decisions.mark-interval:1000}") int interval) {
    if (interval < 1) {
      throw new IllegalArgumentException(
          "stockade.decisions.mark-interval must be at least 1, not " + interval);
    }
    this.jdbc = jdbc;
    this.decisions = decisions;
    this.interval = interval;
    this.extension = new TransactionTemplate(transactions);
    // Each statement sees what is committed when it runs: the marks another instance wrote while
    // this one waited for the stream's lock, and the rows as they are.
    this.extension.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
  }

  /** Rows between two marks: the interval of the stream's marks (at least). */
  int interval() {
    return interval;
  }

  /** Every mark of the SKU's streams, by stream and time. */
  List<Mark> of(String skuId) {
    return jdbc.query(
        "select gate_partition, epoch, decided_at, position from gate_decision_mark"
            + " where sku_id = ? order by gate_partition, epoch, decided_at",
        (rs, i) -> new Mark(rs.getInt(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)),
        skuId);
  }

  /**
   * Extends the stream's marks up to its newest rows (fewer than an interval's rows and those of
   * one millisecond may be left after the last), and deletes those at or before its oldest row; all
   * of the stream's marks when it has no row left.
   */
  void extend(String skuId, int partition, long epoch) {
    boolean more = true;
    while (more) {
      more = Boolean.TRUE.equals(extension.execute(status -> extendSome(skuId, partition, epoch)));
    }
  }

  /**
   * The marks of up to {@link #MILLISECONDS_PER_TRANSACTION} milliseconds of the stream; whether
   * there may be more to write.
   */
  private boolean extendSome(String skuId, int partition, long epoch) {
    jdbc.update(
        "insert ignore into gate_decision_mark_stream (sku_id, gate_partition, epoch)"
            + " values (?, ?, ?)",
        skuId,
        partition,
        epoch);
    jdbc.queryForList(
        "select 1 from gate_decision_mark_stream"
            + " where sku_id = ? and gate_partition = ? and epoch = ? for update",
        skuId,
        partition,
        epoch);
    Optional<Long> oldest = decisions.oldest(skuId, partition, epoch);
    if (oldest.isEmpty()) {
      jdbc.update(
          "delete from gate_decision_mark where sku_id = ? and gate_partition = ? and epoch = ?",
          skuId,
          partition,
          epoch);
      jdbc.update(
          "delete from gate_decision_mark_stream"
              + " where sku_id = ? and gate_partition = ? and epoch = ?",
          skuId,
          partition,
          epoch);
      return false;
    }
    Stream stream = new Stream(partition, epoch, oldest.get());
    jdbc.update(
        "delete from gate_decision_mark"
            + " where sku_id = ? and gate_partition = ? and epoch = ? and decided_at <= ?",
        skuId,
        partition,
        epoch,
        stream.oldest());
    List<Mark> last =
        jdbc.query(
            "select gate_partition, epoch, decided_at, position from gate_decision_mark"
                + " where sku_id = ? and gate_partition = ? and epoch = ?"
                + " order by decided_at desc limit 1",
            (rs, i) -> new Mark(rs.getInt(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)),
            skuId,
            partition,
            epoch);
    // Without a mark, from the stream's oldest row at position 0.
    long at = last.isEmpty() ? stream.oldest() : last.get(0).at();
    long position = last.isEmpty() ? 0 : last.get(0).position();
    // A mark goes at the first millisecond whose rows would take the rows since the last one
    // beyond the interval (after all of them when one millisecond holds more).
    List<Object[]> marks = new ArrayList<>();
    List<GateDecisions.Millisecond> read =
        decisions.perMillisecond(skuId, stream, at, MILLISECONDS_PER_TRANSACTION);
    long since = 0;
    for (GateDecisions.Millisecond millisecond : read) {
      if (since > 0 && since + millisecond.rows() > interval) {
        position += since;
        at = millisecond.at();
        since = 0;
        marks.add(new Object[] {skuId, partition, epoch, at, position});
      }
      since += millisecond.rows();
    }
    if (!marks.isEmpty()) {
      jdbc.batchUpdate(
          "insert into gate_decision_mark (sku_id, gate_partition, epoch, decided_at, position)"
              + " values (?, ?, ?, ?, ?)",
          marks);
    }
    // More to read after the last mark written; none written: the rest is the stream's tail.
    return read.size() == MILLISECONDS_PER_TRANSACTION && !marks.isEmpty();
  }
}
