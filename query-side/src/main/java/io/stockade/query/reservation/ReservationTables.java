package io.stockade.query.reservation;

import io.stockade.platform.jdbc.MultiRowInsert;
import io.stockade.query.replay.BulkValues;
import io.stockade.query.reservation.ReservationChange.Dequeue;
import io.stockade.query.reservation.ReservationChange.Enqueue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The tables a writer of the reservation read model writes, {@code reservation_view} and {@code
 * sku_queue}: the model's own, or a replay's copies ({@link #into}); and the statements both its
 * writers ({@link ReservationRows}, {@link ReservationFold}) run on them alike.
 */
final class ReservationTables {

  /** Rows per insert statement (twelve parameters each), and ids per delete. */
  static final int MAX_ROWS_PER_INSERT = 500;

  private final JdbcTemplate jdbc;
  private final String viewTable;
  private final String queueTable;
  private final String deleteUnqueued;
  private final String deleteQueued;
  private final String insertQueued;

  ReservationTables(JdbcTemplate jdbc) {
    this(jdbc, "");
  }

  private ReservationTables(JdbcTemplate jdbc, String suffix) {
    this.jdbc = jdbc;
    this.viewTable = "reservation_view" + suffix;
    this.queueTable = "sku_queue" + suffix;
    this.deleteUnqueued =
        named("DELETE FROM reservation_view WHERE status = 'QUEUED' AND reservation_id IN ");
    this.deleteQueued = named("DELETE FROM sku_queue WHERE reservation_id IN ");
    this.insertQueued = named("INSERT INTO sku_queue (sku_id, reservation_id) VALUES ");
  }

  /**
   * The tables named as the model's with {@code suffix} appended: a replay's copies ({@link
   * io.stockade.query.replay.ReadModelFold}).
   */
  ReservationTables into(String suffix) {
    return new ReservationTables(jdbc, suffix);
  }

  JdbcTemplate jdbc() {
    return jdbc;
  }

  /** The table of the reservations' rows written. */
  String viewTable() {
    return viewTable;
  }

  /** A statement of the model's tables, on these tables. */
  String named(String statement) {
    return statement.replace("reservation_view", viewTable).replace("sku_queue", queueTable);
  }

  /** Deletes the QUEUED rows of these reservations (rows replaced by their admission's). */
  void deleteUnqueued(List<String> reservationIds) {
    inChunks(reservationIds, deleteUnqueued);
  }

  /**
   * The queue changes of a batch ({@link Enqueue}, {@link Dequeue}), in order: each run of joins in
   * multi-row inserts that skip rows which exist, each run of departures in deletes.
   */
  void writeQueues(List<ReservationChange> changes) {
    List<Object> joins = new ArrayList<>();
    List<String> departures = new ArrayList<>();
    for (ReservationChange change : changes) {
      if (change instanceof Enqueue enqueue) {
        inChunks(departures, deleteQueued);
        departures.clear();
        for (String skuId : enqueue.skuIds()) {
          joins.add(skuId);
          joins.add(enqueue.reservationId());
        }
      } else {
        insertQueued(joins);
        joins.clear();
        departures.add(((Dequeue) change).reservationId());
      }
    }
    insertQueued(joins);
    inChunks(departures, deleteQueued);
  }

  private void insertQueued(List<Object> values) {
    for (int from = 0; from < values.size(); from += 2 * MAX_ROWS_PER_INSERT) {
      List<Object> chunk =
          values.subList(from, Math.min(values.size(), from + 2 * MAX_ROWS_PER_INSERT));
      jdbc.update(
          MultiRowInsert.sql(insertQueued, "(?, ?)", chunk.size() / 2)
              + " ON DUPLICATE KEY UPDATE sku_id = sku_id",
          BulkValues.of(chunk));
    }
  }

  /** {@code statement} followed by {@code (?, ...)} for the ids, in chunks. */
  private void inChunks(List<String> ids, String statement) {
    for (int from = 0; from < ids.size(); from += MAX_ROWS_PER_INSERT) {
      List<String> chunk = ids.subList(from, Math.min(ids.size(), from + MAX_ROWS_PER_INSERT));
      jdbc.update(
          statement + "(" + String.join(", ", Collections.nCopies(chunk.size(), "?")) + ")",
          chunk.toArray());
    }
  }
}
