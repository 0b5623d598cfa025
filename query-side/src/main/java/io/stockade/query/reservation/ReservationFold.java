package io.stockade.query.reservation;

import static io.stockade.query.reservation.ReservationChange.confirmation;
import static io.stockade.query.reservation.ReservationChange.creation;
import static io.stockade.query.reservation.ReservationChange.extension;
import static io.stockade.query.reservation.ReservationChange.queuedCreation;
import static io.stockade.query.reservation.ReservationChange.refusing;
import static io.stockade.query.reservation.ReservationChange.releasing;
import static io.stockade.query.reservation.ReservationRow.LAST_SEQUENCE;
import static io.stockade.query.reservation.ReservationRow.UPDATED_AT;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.query.replay.BulkRows;
import io.stockade.query.reservation.ReservationChange.Columns;
import io.stockade.query.reservation.ReservationChange.Creation;
import io.stockade.query.reservation.ReservationChange.Dequeue;
import io.stockade.query.reservation.ReservationChange.Unqueued;
import io.stockade.query.reservation.ReservationChange.Update;
import io.stockade.query.reservation.ReservationRow.Status;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A replay's writes: a fold into the emptied copies of the tables (see {@link
 * ReservationReplayFold}), the rows that {@link ReservationRows}' {@code create}, {@code extend},
 * {@code confirm} and {@code release} would leave, written in bulk. The rows created lately are
 * held, and a later event of one of them is applied to it in memory, as its conditional UPDATE
 * would; events of rows written already wait as updates. Both go out together ({@link #flush}) when
 * the window's number are held ({@value #FOLD_WINDOW} unless {@code
 * stockade.replay.reservation-window} says otherwise): memory is bounded by the window. The updates
 * go in bulk too ({@link #applyInBulk}).
 */
final class ReservationFold implements ReservationChanges.Target {

  /** Changes a replay's fold holds before writing them together, unless told otherwise. */
  static final int FOLD_WINDOW = 10_000;

  /**
   * Where a fold's updates of rows it has written already are loaded in bulk, to be applied by one
   * {@link #APPLY_FOLD_UPDATES} per round instead of an UPDATE each: a table of the replay's
   * connection only, created and dropped in its transaction (neither commits it).
   */
  private static final String FOLD_UPDATES = "reservation_fold_update";

  /** {@link Update#foldRow}'s columns: whose update, its round, what it sets, in which order. */
  private static final List<String> FOLD_UPDATE_COLUMNS =
      Stream.of(
              Stream.of("reservation_id", "round_number"),
              Columns.NAMES.stream(),
              Stream.of("last_sequence", "updated_at"))
          .flatMap(columns -> columns)
          .toList();

  private static final String CREATE_FOLD_UPDATES =
      "CREATE TEMPORARY TABLE "
          + FOLD_UPDATES
          + " (reservation_id VARCHAR(64) NOT NULL, round_number INTEGER NOT NULL,"
          + " status VARCHAR(16) NULL, expires_at DATETIME(6) NULL, confirmed_at DATETIME(6) NULL,"
          + " confirmed_lines_json TEXT NULL, released_at DATETIME(6) NULL,"
          + " release_reason VARCHAR(32) NULL, last_sequence BIGINT NOT NULL,"
          + " updated_at DATETIME(6) NOT NULL, PRIMARY KEY (round_number, reservation_id))"
          + " DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin";

  private static final String DROP_FOLD_UPDATES = "DROP TEMPORARY TABLE IF EXISTS " + FOLD_UPDATES;

  /**
   * {@link ReservationRows}' conditional UPDATE for every loaded update of one round: each
   * reservation's first update of the batch in round 1, its second in round 2, and so on, so that
   * they apply in their order.
   */
  private static final String APPLY_FOLD_UPDATES =
      "UPDATE reservation_view v JOIN "
          + FOLD_UPDATES
          + " u ON v.reservation_id = u.reservation_id SET "
          + Columns.NAMES.stream()
              .map(column -> "v." + column + " = coalesce(u." + column + ", v." + column + "), ")
              .collect(Collectors.joining())
          + "v.last_sequence = u.last_sequence, v.updated_at = u.updated_at"
          + " WHERE u.round_number = ? AND v.last_sequence < u.last_sequence";

  /** The reservations of a round's updates that the read model does not hold. */
  private static final String FOLD_UPDATES_UNKNOWN =
      "SELECT u.reservation_id FROM "
          + FOLD_UPDATES
          + " u LEFT JOIN reservation_view v ON v.reservation_id = u.reservation_id"
          + " WHERE u.round_number = ? AND v.reservation_id IS NULL";

  private final ReservationTables tables;
  private final JdbcTemplate jdbc;
  private final int window;
  private final Executor writes;
  private final String applyFoldUpdates;
  private final String foldUpdatesUnknown;
  private final BulkRows rows;
  private final BulkRows updateRows;
  private final Map<String, Creation> created = new LinkedHashMap<>();
  private final List<Update> updates = new ArrayList<>();
  private final Set<String> updated = new HashSet<>();

  /** Queue changes held, in the order of their events. */
  private final List<ReservationChange> queueChanges = new ArrayList<>();

  /**
   * The reservations whose QUEUED row was written and whose admission has not come: its row will
   * replace the QUEUED one ({@link Unqueued}). As many as wait in the pre-queues.
   */
  private final Set<String> queuedWritten = new HashSet<>();

  /** The QUEUED rows written in an earlier batch that rows held now replace. */
  private final List<Unqueued> unqueued = new ArrayList<>();

  /**
   * A fold into {@code tables}, holding {@code window} changes, whose statements go to {@code
   * writes}, in order.
   */
  ReservationFold(ReservationTables tables, int window, Executor writes) {
    this.tables = tables;
    this.jdbc = tables.jdbc();
    this.window = window;
    this.writes = writes;
    this.applyFoldUpdates = tables.named(APPLY_FOLD_UPDATES);
    this.foldUpdatesUnknown = tables.named(FOLD_UPDATES_UNKNOWN);
    this.rows =
        new BulkRows(
            jdbc, tables.viewTable(), ReservationRow.COLUMN_NAMES, BulkRows.Duplicates.SKIP);
    this.updateRows =
        new BulkRows(jdbc, FOLD_UPDATES, FOLD_UPDATE_COLUMNS, BulkRows.Duplicates.FAIL);
  }

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
    if (updated.contains(reservationId)) {
      // Its updates must reach the table before it does, as they did event by event.
      flush();
    }
    hold(
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
    flushWhenFull();
  }

  /**
   * Holds a new row unless one is held or written, as {@link ReservationRows}' insert would: a row
   * that is not QUEUED replaces a QUEUED one.
   */
  private void hold(Creation creation) {
    String reservationId = creation.reservationId();
    boolean replaces = !creation.queued();
    Creation held = created.get(reservationId);
    if (held == null) {
      if (replaces && queuedWritten.remove(reservationId)) {
        unqueued.add(new Unqueued(reservationId));
      }
      created.put(reservationId, creation);
    } else if (replaces && held.queued()) {
      created.put(reservationId, creation);
    }
  }

  @Override
  public void queue(
      String reservationId,
      String userId,
      List<ReservationLine> lines,
      Instant queuedAt,
      Instant at) {
    if (updated.contains(reservationId)) {
      flush();
    }
    hold(queuedCreation(reservationId, userId, lines, queuedAt, at));
    queueChanges.add(ReservationChange.enqueue(reservationId, lines));
    flushWhenFull();
  }

  @Override
  public void draw(String reservationId, String refusal, Instant at) {
    if (refusal != null) {
      queuedWritten.remove(reservationId);
      update(refusing(reservationId, refusal, at));
    }
    queueChanges.add(new Dequeue(reservationId));
    flushWhenFull();
  }

  @Override
  public void extend(String reservationId, Instant expiresAt, long sequence, Instant at) {
    update(extension(reservationId, expiresAt, sequence, at));
  }

  @Override
  public void confirm(
      String reservationId,
      Instant confirmedAt,
      List<ReservationLine> sold,
      long sequence,
      Instant at) {
    update(confirmation(reservationId, confirmedAt, sold, sequence, at));
  }

  @Override
  public void release(
      String reservationId, Instant releasedAt, String reason, long sequence, Instant at) {
    update(releasing(reservationId, releasedAt, reason, sequence, at));
  }

  private void update(Update update) {
    Creation creation = created.get(update.reservationId());
    if (creation == null) {
      updates.add(update);
      updated.add(update.reservationId());
      flushWhenFull();
      return;
    }
    Object[] row = creation.values();
    // UPDATE's SET, under its condition last_sequence < ?.
    if ((long) row[LAST_SEQUENCE] < update.sequence()) {
      Object[] set = update.set().values();
      for (int i = 0; i < set.length; i++) {
        if (set[i] != null) {
          row[Columns.SET_COLUMNS[i]] = set[i];
        }
      }
      row[LAST_SEQUENCE] = update.sequence();
      row[UPDATED_AT] = update.at();
    }
  }

  private void flushWhenFull() {
    if (created.size() + updates.size() + queueChanges.size() >= window) {
      flush();
    }
  }

  /** Writes what is held. */
  void flush() {
    List<String> unqueuedIds = unqueued.stream().map(Unqueued::reservationId).toList();
    List<Object[]> creations = created.values().stream().map(Creation::values).toList();
    List<Update> updatesHeld = List.copyOf(updates);
    List<ReservationChange> queueChangesHeld = List.copyOf(queueChanges);
    writes.execute(() -> write(unqueuedIds, creations, updatesHeld, queueChangesHeld));
    for (Creation creation : created.values()) {
      if (creation.queued()) {
        queuedWritten.add(creation.reservationId());
      }
    }
    unqueued.clear();
    created.clear();
    updates.clear();
    updated.clear();
    queueChanges.clear();
  }

  /**
   * Writes a batch: the QUEUED rows replaced deleted, the new rows through bulk writes, the updates
   * by {@link #applyInBulk}, then the queue changes.
   */
  private void write(
      List<String> unqueuedIds,
      List<Object[]> creations,
      List<Update> updatesHeld,
      List<ReservationChange> queueChangesHeld) {
    tables.deleteUnqueued(unqueuedIds);
    rows.write(creations);
    applyInBulk(updatesHeld);
    tables.writeQueues(queueChangesHeld);
  }

  /**
   * A fold's updates of rows it wrote in an earlier batch (a confirmation or release that came more
   * than a window after its reservation, as most do in a shop whose buyers pay minutes after they
   * reserve): loaded into {@link #FOLD_UPDATES} in bulk, then applied by one statement per round,
   * with the same condition as {@link ReservationRows}' UPDATE each. An update event by event cost
   * the database a statement's execution per row.
   */
  private void applyInBulk(List<Update> updates) {
    if (updates.isEmpty()) {
      return;
    }
    Map<String, Integer> rounds = new HashMap<>();
    List<List<Update>> byRound = new ArrayList<>();
    List<Object[]> values = new ArrayList<>(updates.size());
    for (Update update : updates) {
      int round = rounds.merge(update.reservationId(), 1, Integer::sum);
      if (byRound.size() < round) {
        byRound.add(new ArrayList<>());
      }
      byRound.get(round - 1).add(update);
      values.add(update.foldRow(round));
    }
    jdbc.execute(DROP_FOLD_UPDATES);
    jdbc.execute(CREATE_FOLD_UPDATES);
    try {
      updateRows.write(values);
      for (int round = 1; round <= byRound.size(); round++) {
        List<Update> these = byRound.get(round - 1);
        if (jdbc.update(applyFoldUpdates, round) < these.size()) {
          Set<String> unknown =
              new HashSet<>(jdbc.queryForList(foldUpdatesUnknown, String.class, round));
          these.stream()
              .filter(update -> unknown.contains(update.reservationId()))
              .forEach(ReservationRows::unknown);
        }
      }
    } finally {
      jdbc.execute(DROP_FOLD_UPDATES);
    }
  }
}
