package io.stockade.query.reservation;

import static io.stockade.query.reservation.ReservationChange.confirmation;
import static io.stockade.query.reservation.ReservationChange.creation;
import static io.stockade.query.reservation.ReservationChange.extension;
import static io.stockade.query.reservation.ReservationChange.queuedCreation;
import static io.stockade.query.reservation.ReservationChange.refusing;
import static io.stockade.query.reservation.ReservationChange.releasing;
import static io.stockade.query.reservation.ReservationRow.COLUMNS;
import static io.stockade.query.reservation.ReservationRow.COLUMN_NAMES;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReleased;
import io.stockade.platform.jdbc.MultiRowInsert;
import io.stockade.query.replay.BulkValues;
import io.stockade.query.reservation.ReservationChange.Creation;
import io.stockade.query.reservation.ReservationChange.Dequeue;
import io.stockade.query.reservation.ReservationChange.Update;
import io.stockade.query.reservation.ReservationRow.Status;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The live writes of the table {@code reservation_view}, through JDBC: the statements join the
 * transaction of the caller (the event processor's, which also stores its token), and a batch's
 * changes are written together when it commits. Every change is conditional on the event's sequence
 * number being greater than the row's {@code last_sequence}. A replay's bulk writes are {@link
 * ReservationFold}'s, the reads {@link ReservationViews}'.
 */
@Repository
class ReservationRows implements ReservationChanges.Target {

  private static final Logger log = LoggerFactory.getLogger(ReservationRows.class);

  private static final String PENDING = ReservationRows.class.getName() + ".pending";

  private static final String INSERT = "INSERT INTO reservation_view (" + COLUMNS + ") VALUES ";

  private static final String INSERT_ROW =
      "(" + String.join(", ", Collections.nCopies(COLUMN_NAMES.size(), "?")) + ")";

  /**
   * A row that exists stays as it is, unless it is QUEUED and the new row is not (its admission's
   * {@code StockReserved}, which may come after or before the draw's {@code ReservationDrawn}):
   * then the new row replaces it. The status is assigned last: MariaDB assigns from left to right,
   * each assignment seeing those before it.
   */
  private static final String ON_DUPLICATE;

  static {
    String replaces = "status = 'QUEUED' AND VALUES(status) <> 'QUEUED'";
    StringBuilder set = new StringBuilder(" ON DUPLICATE KEY UPDATE ");
    for (String column : COLUMN_NAMES) {
      if (!column.equals("reservation_id") && !column.equals("status")) {
        set.append(column)
            .append(" = IF(")
            .append(replaces)
            .append(", VALUES(")
            .append(column)
            .append("), ")
            .append(column)
            .append("), ");
      }
    }
    set.append("status = IF(").append(replaces).append(", VALUES(status), status)");
    ON_DUPLICATE = set.toString();
  }

  private static final String UPDATE =
      "UPDATE reservation_view SET status = coalesce(?, status),"
          + " expires_at = coalesce(?, expires_at), confirmed_at = coalesce(?, confirmed_at),"
          + " confirmed_lines_json = coalesce(?, confirmed_lines_json),"
          + " released_at = coalesce(?, released_at),"
          + " release_reason = coalesce(?, release_reason), last_sequence = ?, updated_at = ?"
          + " WHERE reservation_id = ? AND last_sequence < ?";

  /** The tables written: the read model's, or a replay's copies of them ({@link #into}). */
  private final ReservationTables tables;

  private final JdbcTemplate jdbc;
  private final String insert;
  private final String update;
  private final String exists;

  @Autowired
  ReservationRows(JdbcTemplate jdbc) {
    this(new ReservationTables(jdbc));
  }

  private ReservationRows(ReservationTables tables) {
    this.tables = tables;
    this.jdbc = tables.jdbc();
    this.insert = tables.named(INSERT);
    this.update = tables.named(UPDATE);
    this.exists = tables.named("SELECT 1 FROM reservation_view WHERE reservation_id = ?");
  }

  /**
   * The same writes into the tables named as this model's with {@code suffix} appended: a replay's
   * copies, which its follower writes event by event ({@link
   * io.stockade.query.replay.ReadModelFold#follow}).
   */
  ReservationRows into(String suffix) {
    return new ReservationRows(tables.into(suffix));
  }

  /**
   * Creates the row of a reservation; does nothing when it exists (a stream's first event is the
   * only one that creates, so an existing row has applied it or a later one already).
   */
  @Override
  public void create(
      String reservationId,
      String userId,
      Status status,
      List<ReservationLine> lines,
      Instant createdAt,
      Instant expiresAt,
      Instant releasedAt,
      String releaseReason,
      long sequence,
      Instant at) {
    accept(
        creation(
            reservationId,
            userId,
            status,
            lines,
            createdAt,
            expiresAt,
            releasedAt,
            releaseReason,
            sequence,
            at));
  }

  /**
   * Moves the row's end of hold to {@code expiresAt}, unless it is missing or has applied this
   * sequence or a later.
   */
  @Override
  public void extend(String reservationId, Instant expiresAt, long sequence, Instant at) {
    accept(extension(reservationId, expiresAt, sequence, at));
  }

  /**
   * Confirms the row with the units sold, unless it is missing or has applied this sequence or a
   * later.
   */
  @Override
  public void confirm(
      String reservationId,
      Instant confirmedAt,
      List<ReservationLine> sold,
      long sequence,
      Instant at) {
    accept(confirmation(reservationId, confirmedAt, sold, sequence, at));
  }

  /**
   * Releases the row, unless it is missing or has applied this sequence or a later. A release with
   * reason {@link StockReleased#NOT_CONFIRMED} gives back the units a partial confirmation did not
   * sell, right after it: the reservation stays CONFIRMED, and the row only records when and why
   * those units went back.
   */
  @Override
  public void release(
      String reservationId, Instant releasedAt, String reason, long sequence, Instant at) {
    accept(releasing(reservationId, releasedAt, reason, sequence, at));
  }

  /**
   * Creates the QUEUED row of a reservation that arrived in a pre-queue and puts it in its SKUs'
   * queues. A row that exists has applied this or a later event: it stays as it is.
   */
  @Override
  public void queue(
      String reservationId,
      String userId,
      List<ReservationLine> lines,
      Instant queuedAt,
      Instant at) {
    accept(queuedCreation(reservationId, userId, lines, queuedAt, at));
    accept(ReservationChange.enqueue(reservationId, lines));
  }

  /** Takes it out of its SKUs' queues; a refusal makes a row still QUEUED REFUSED. */
  @Override
  public void draw(String reservationId, String refusal, Instant at) {
    if (refusal != null) {
      accept(refusing(reservationId, refusal, at));
    }
    accept(new Dequeue(reservationId));
  }

  /**
   * Inside a unit of work (the projection's batch) changes wait until just before the batch commits
   * and are then written together; outside one they are written at once.
   */
  private void accept(ReservationChange change) {
    if (CurrentUnitOfWork.isStarted()) {
      pending().add(change);
      return;
    }
    write(List.of(change));
  }

  private List<ReservationChange> pending() {
    UnitOfWork<?> unitOfWork = CurrentUnitOfWork.get().root();
    return unitOfWork.getOrComputeResource(
        PENDING,
        key -> {
          List<ReservationChange> changes = new ArrayList<>();
          unitOfWork.onPrepareCommit(u -> write(changes));
          return changes;
        });
  }

  /**
   * Writes a batch: the new rows first, in multi-row inserts that skip rows which exist, then the
   * updates, in the order of their events, as one JDBC batch. A reservation's creating event comes
   * before its other events, so its order is kept.
   */
  private void write(List<ReservationChange> batch) {
    List<Object[]> creations = new ArrayList<>();
    List<Update> updates = new ArrayList<>();
    List<ReservationChange> queueChanges = new ArrayList<>();
    for (ReservationChange change : batch) {
      if (change instanceof Creation creation) {
        creations.add(creation.values());
      } else if (change instanceof Update update) {
        updates.add(update);
      } else {
        queueChanges.add(change);
      }
    }
    insert(creations);
    if (!updates.isEmpty()) {
      int[] counts = jdbc.batchUpdate(update, updates.stream().map(Update::arguments).toList());
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] == 0) {
          notApplied(updates.get(i));
        }
      }
    }
    tables.writeQueues(queueChanges);
  }

  /** New rows in multi-row inserts that skip rows which exist. */
  private void insert(List<Object[]> creations) {
    int perInsert = ReservationTables.MAX_ROWS_PER_INSERT;
    for (int from = 0; from < creations.size(); from += perInsert) {
      List<Object[]> chunk = creations.subList(from, Math.min(creations.size(), from + perInsert));
      jdbc.update(
          MultiRowInsert.sql(insert, INSERT_ROW, chunk.size()) + ON_DUPLICATE,
          BulkValues.of(chunk.stream().flatMap(Arrays::stream).toList()));
    }
  }

  private void notApplied(Update update) {
    if (exists(update.reservationId())) {
      log.debug(
          "The {} of reservation {} (sequence {}) was applied already",
          update.what(),
          update.reservationId(),
          update.sequence());
    } else {
      unknown(update);
    }
  }

  /** Warns of an update of a reservation the read model has no row of. */
  static void unknown(Update update) {
    log.warn(
        "The {} of reservation {} (sequence {}) names a reservation the read model does not know",
        update.what(),
        update.reservationId(),
        update.sequence());
  }

  private boolean exists(String reservationId) {
    return !jdbc.queryForList(exists, Integer.class, reservationId).isEmpty();
  }

  /** Empties the read model, before a replay rebuilds it. */
  void deleteAll() {
    // DELETE rather than TRUNCATE: TRUNCATE commits on its own, outside the reset's transaction.
    jdbc.update("DELETE FROM reservation_view");
    jdbc.update("DELETE FROM sku_queue");
  }
}
