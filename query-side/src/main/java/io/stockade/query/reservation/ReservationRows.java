package io.stockade.query.reservation;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.ReservationView;
import io.stockade.api.reservation.StockReleased;
import io.stockade.platform.jdbc.MultiRowInsert;
import io.stockade.query.replay.BulkRows;
import io.stockade.query.replay.BulkValues;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The table {@code reservation_view}, through JDBC: the statements join the transaction of the
 * caller (the event processor's, which also stores its token), and a batch's changes are written
 * together when it commits. Every change is conditional on the event's sequence number being
 * greater than the row's {@code last_sequence}.
 */
@Repository
class ReservationRows implements ReservationChanges.Target {

  /**
   * A reservation's state as stored; {@link #ABANDONED} is shown as RELEASED by the API. {@link
   * #QUEUED} waits in a pre-queue for the draw, which makes it RESERVED (through its {@code
   * StockReserved}) or {@link #REFUSED}.
   */
  enum Status {
    RESERVED,
    CONFIRMED,
    RELEASED,
    ABANDONED,
    QUEUED,
    REFUSED
  }

  /**
   * The {@code last_sequence} of a QUEUED row: below every sequence of the reservation's own
   * stream, so that its first event ({@code StockReserved}, sequence 0) applies.
   */
  static final long QUEUED_SEQUENCE = -1;

  /** A line as stored in the {@code lines_json} column: {@code {"skuId": "...", "quantity": 2}}. */
  @JsonPropertyOrder({"skuId", "quantity"})
  record StoredLine(String skuId, int quantity) {}

  private static final TypeReference<List<StoredLine>> STORED_LINES = new TypeReference<>() {};

  /** The storage format of the lines does not follow the web layer's JSON settings. */
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static final List<String> COLUMN_NAMES =
      List.of(
          "reservation_id",
          "user_id",
          "status",
          "lines_json",
          "created_at",
          "expires_at",
          "confirmed_at",
          "confirmed_lines_json",
          "released_at",
          "release_reason",
          "last_sequence",
          "updated_at");

  private static final String COLUMNS = String.join(", ", COLUMN_NAMES);

  /** Where {@link #COLUMNS} has the columns a change sets, and those that order the changes. */
  private static final int STATUS = 2;

  private static final int EXPIRES_AT = 5;
  private static final int CONFIRMED_AT = 6;
  private static final int CONFIRMED_LINES = 7;
  private static final int RELEASED_AT = 8;
  private static final int RELEASE_REASON = 9;
  private static final int LAST_SEQUENCE = 10;
  private static final int UPDATED_AT = 11;

  private static final Logger log = LoggerFactory.getLogger(ReservationRows.class);

  private final JdbcTemplate jdbc;
  private final int foldWindow;

  /** The tables written: the read model's, or a replay's copies of them ({@link #into}). */
  private final String viewTable;

  private final String queueTable;
  private final String insert;
  private final String update;
  private final String applyFoldUpdates;
  private final String foldUpdatesUnknown;
  private final String deleteUnqueued;
  private final String deleteQueued;
  private final String insertQueued;
  private final String exists;

  @Autowired
  ReservationRows(
      JdbcTemplate jdbc,
      @Value("${stockade.replay.reservation-window:" + FOLD_WINDOW + "}") int foldWindow) {
    this(jdbc, foldWindow, "");
  }

  private ReservationRows(JdbcTemplate jdbc, int foldWindow, String suffix) {
    if (foldWindow < 1) {
      throw new IllegalArgumentException(
          "stockade.replay.reservation-window must be at least 1, not " + foldWindow);
    }
    this.jdbc = jdbc;
    this.foldWindow = foldWindow;
    this.viewTable = "reservation_view" + suffix;
    this.queueTable = "sku_queue" + suffix;
    this.insert = named(INSERT);
    this.update = named(UPDATE);
    this.applyFoldUpdates = named(APPLY_FOLD_UPDATES);
    this.foldUpdatesUnknown = named(FOLD_UPDATES_UNKNOWN);
    this.deleteUnqueued =
        named("DELETE FROM reservation_view WHERE status = 'QUEUED' AND reservation_id IN ");
    this.deleteQueued = named("DELETE FROM sku_queue WHERE reservation_id IN ");
    this.insertQueued = named("INSERT INTO sku_queue (sku_id, reservation_id) VALUES ");
    this.exists = named("SELECT 1 FROM reservation_view WHERE reservation_id = ?");
  }

  /**
   * The same writes into the tables named as this model's with {@code suffix} appended: a replay's
   * copies ({@link io.stockade.query.replay.ReadModelFold}). Its reads still read the model's own.
   */
  ReservationRows into(String suffix) {
    return new ReservationRows(jdbc, foldWindow, suffix);
  }

  /** A statement of the model's tables, on the tables this instance writes. */
  private String named(String statement) {
    return statement.replace("reservation_view", viewTable).replace("sku_queue", queueTable);
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

  private static Creation creation(
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
    return new Creation(
        new Object[] {
          reservationId,
          userId,
          status.name(),
          json(lines),
          utc(createdAt),
          utc(expiresAt),
          null,
          null,
          utc(releasedAt),
          releaseReason,
          sequence,
          utc(at)
        });
  }

  /**
   * Moves the row's end of hold to {@code expiresAt}, unless it is missing or has applied this
   * sequence or a later.
   */
  @Override
  public void extend(String reservationId, Instant expiresAt, long sequence, Instant at) {
    accept(extension(reservationId, expiresAt, sequence, at));
  }

  private static Update extension(
      String reservationId, Instant expiresAt, long sequence, Instant at) {
    return new Update(
        reservationId,
        "extension",
        sequence,
        new Columns(null, utc(expiresAt), null, null, null, null),
        utc(at));
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

  private static Update confirmation(
      String reservationId,
      Instant confirmedAt,
      List<ReservationLine> sold,
      long sequence,
      Instant at) {
    return new Update(
        reservationId,
        "confirmation",
        sequence,
        new Columns(Status.CONFIRMED.name(), null, utc(confirmedAt), json(sold), null, null),
        utc(at));
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

  private static Update releasing(
      String reservationId, Instant releasedAt, String reason, long sequence, Instant at) {
    String status = StockReleased.NOT_CONFIRMED.equals(reason) ? null : Status.RELEASED.name();
    return new Update(
        reservationId,
        "release",
        sequence,
        new Columns(status, null, null, null, utc(releasedAt), reason),
        utc(at));
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
    accept(new Enqueue(reservationId, skuIds(lines)));
  }

  /** Takes it out of its SKUs' queues; a refusal makes a row still QUEUED REFUSED. */
  @Override
  public void draw(String reservationId, String refusal, Instant at) {
    if (refusal != null) {
      accept(refusing(reservationId, refusal, at));
    }
    accept(new Dequeue(reservationId));
  }

  private static Creation queuedCreation(
      String reservationId,
      String userId,
      List<ReservationLine> lines,
      Instant queuedAt,
      Instant at) {
    return creation(
        reservationId,
        userId,
        Status.QUEUED,
        lines,
        queuedAt,
        null,
        null,
        null,
        QUEUED_SEQUENCE,
        at);
  }

  /**
   * A refusal applies to a QUEUED row only: as the first change after {@link #QUEUED_SEQUENCE}. A
   * refused reservation's own stream never begins.
   */
  private static Update refusing(String reservationId, String refusal, Instant at) {
    return new Update(
        reservationId,
        "refusal",
        QUEUED_SEQUENCE + 1,
        new Columns(Status.REFUSED.name(), null, null, null, null, refusal),
        utc(at));
  }

  private static List<String> skuIds(List<ReservationLine> lines) {
    return lines.stream().map(ReservationLine::skuId).distinct().toList();
  }

  /** A change waiting for its batch to be written. */
  private sealed interface Change permits Creation, Update, Enqueue, Dequeue, Unqueued {}

  /** A queued reservation joins the queue of each of these SKUs. */
  private record Enqueue(String reservationId, List<String> skuIds) implements Change {}

  /** A queued reservation leaves the queues it is in. */
  private record Dequeue(String reservationId) implements Change {}

  /**
   * A fold's QUEUED row, written in an earlier batch, whose admission's row replaces it: the QUEUED
   * row is deleted before the new row is loaded.
   */
  private record Unqueued(String reservationId) implements Change {}

  /**
   * The columns an update sets: each that is not null replaces the row's ({@code coalesce} in
   * {@link #UPDATE}), in the order of {@link #SET_COLUMNS}.
   */
  private record Columns(
      String status,
      LocalDateTime expiresAt,
      LocalDateTime confirmedAt,
      String confirmedLines,
      LocalDateTime releasedAt,
      String releaseReason) {

    Object[] values() {
      return new Object[] {
        status, expiresAt, confirmedAt, confirmedLines, releasedAt, releaseReason
      };
    }
  }

  /** Where the values of {@link Columns} go in a row of {@link #COLUMNS}. */
  private static final int[] SET_COLUMNS = {
    STATUS, EXPIRES_AT, CONFIRMED_AT, CONFIRMED_LINES, RELEASED_AT, RELEASE_REASON
  };

  /** The columns of a new row, in the order of {@link #COLUMNS}. */
  private record Creation(Object[] values) implements Change {}

  /** A change of an existing row: what it sets, at the event's sequence and time. */
  private record Update(
      String reservationId, String what, long sequence, Columns set, LocalDateTime at)
      implements Change {

    /** Its row of {@link #FOLD_UPDATES}, the {@code round}-th update of its reservation. */
    Object[] foldRow(int round) {
      Object[] values = set.values();
      Object[] row = new Object[values.length + 4];
      row[0] = reservationId;
      row[1] = round;
      System.arraycopy(values, 0, row, 2, values.length);
      row[values.length + 2] = sequence;
      row[values.length + 3] = at;
      return row;
    }

    /** The arguments of {@link #UPDATE}. */
    Object[] arguments() {
      Object[] values = set.values();
      Object[] arguments = Arrays.copyOf(values, values.length + 4);
      arguments[values.length] = sequence;
      arguments[values.length + 1] = at;
      arguments[values.length + 2] = reservationId;
      arguments[values.length + 3] = sequence;
      return arguments;
    }
  }

  private static final String PENDING = ReservationRows.class.getName() + ".pending";

  /** Rows per insert statement (twelve parameters each). */
  private static final int MAX_ROWS_PER_INSERT = 500;

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

  /**
   * Where a fold's updates of rows it has written already are loaded in bulk, to be applied by one
   * {@link #APPLY_FOLD_UPDATES} per round instead of an {@link #UPDATE} each: a table of the
   * replay's connection only, created and dropped in its transaction (neither commits it).
   */
  private static final String FOLD_UPDATES = "reservation_fold_update";

  /** The columns an update sets, as {@link Update#foldRow} gives them. */
  private static final List<String> FOLD_SET_COLUMNS =
      Arrays.stream(SET_COLUMNS).mapToObj(COLUMN_NAMES::get).toList();

  /** {@link Update#foldRow}'s columns: whose update, its round, what it sets, in which order. */
  private static final List<String> FOLD_UPDATE_COLUMNS =
      Stream.of(
              Stream.of("reservation_id", "round_number"),
              FOLD_SET_COLUMNS.stream(),
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
   * {@link #UPDATE} for every loaded update of one round: each reservation's first update of the
   * batch in round 1, its second in round 2, and so on, so that they apply in their order.
   */
  private static final String APPLY_FOLD_UPDATES =
      "UPDATE reservation_view v JOIN "
          + FOLD_UPDATES
          + " u ON v.reservation_id = u.reservation_id SET "
          + FOLD_SET_COLUMNS.stream()
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

  /**
   * Inside a unit of work (the projection's batch) changes wait until just before the batch commits
   * and are then written together; outside one they are written at once.
   */
  private void accept(Change change) {
    if (CurrentUnitOfWork.isStarted()) {
      pending().add(change);
      return;
    }
    write(List.of(change));
  }

  private List<Change> pending() {
    UnitOfWork<?> unitOfWork = CurrentUnitOfWork.get().root();
    return unitOfWork.getOrComputeResource(
        PENDING,
        key -> {
          List<Change> changes = new ArrayList<>();
          unitOfWork.onPrepareCommit(u -> write(changes));
          return changes;
        });
  }

  /** Changes a replay's fold holds before writing them together, unless told otherwise. */
  static final int FOLD_WINDOW = 10_000;

  /**
   * A fold into the emptied table (a replay's, see {@link ReservationReplayFold}): the rows that
   * {@link #create}, {@link #extend}, {@link #confirm} and {@link #release} would leave, written in
   * bulk. The rows created lately are held, and a later event of one of them is applied to it in
   * memory, as its conditional UPDATE would; events of rows written already wait as updates. Both
   * go out together ({@link #write}) when the window's number are held ({@value #FOLD_WINDOW}
   * unless {@code stockade.replay.reservation-window} says otherwise): memory is bounded by the
   * window. The updates go in bulk too ({@link #applyInBulk}).
   */
  final class Fold implements ReservationChanges.Target {

    private final Executor writes;
    private final BulkRows rows =
        new BulkRows(jdbc, viewTable, COLUMN_NAMES, BulkRows.Duplicates.SKIP);
    private final BulkRows updateRows =
        new BulkRows(jdbc, FOLD_UPDATES, FOLD_UPDATE_COLUMNS, BulkRows.Duplicates.FAIL);
    private final Map<String, Creation> created = new LinkedHashMap<>();
    private final List<Change> updates = new ArrayList<>();
    private final Set<String> updated = new HashSet<>();

    /** Queue changes held, in the order of their events. */
    private final List<Change> queueChanges = new ArrayList<>();

    /**
     * The reservations whose QUEUED row was written and whose admission has not come: its row will
     * replace the QUEUED one ({@link Unqueued}). As many as wait in the pre-queues.
     */
    private final Set<String> queuedWritten = new HashSet<>();

    /** The QUEUED rows written in an earlier batch that rows held now replace. */
    private final List<Change> unqueued = new ArrayList<>();

    private Fold(Executor writes) {
      this.writes = writes;
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
     * Holds a new row unless one is held or written, as {@link #insert} would: a row that is not
     * QUEUED replaces a QUEUED one.
     */
    private void hold(Creation creation) {
      String reservationId = (String) creation.values()[0];
      boolean replaces = !Status.QUEUED.name().equals(creation.values()[STATUS]);
      Creation held = created.get(reservationId);
      if (held == null) {
        if (replaces && queuedWritten.remove(reservationId)) {
          unqueued.add(new Unqueued(reservationId));
        }
        created.put(reservationId, creation);
      } else if (replaces && Status.QUEUED.name().equals(held.values()[STATUS])) {
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
      queueChanges.add(new Enqueue(reservationId, skuIds(lines)));
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
            row[SET_COLUMNS[i]] = set[i];
          }
        }
        row[LAST_SEQUENCE] = update.sequence();
        row[UPDATED_AT] = update.at();
      }
    }

    private void flushWhenFull() {
      if (created.size() + updates.size() + queueChanges.size() >= foldWindow) {
        flush();
      }
    }

    /** Writes what is held. */
    void flush() {
      List<Change> batch =
          new ArrayList<>(unqueued.size() + created.size() + updates.size() + queueChanges.size());
      batch.addAll(unqueued);
      batch.addAll(created.values());
      batch.addAll(updates);
      batch.addAll(queueChanges);
      writes.execute(() -> write(batch, this));
      for (Creation creation : created.values()) {
        if (Status.QUEUED.name().equals(creation.values()[STATUS])) {
          queuedWritten.add((String) creation.values()[0]);
        }
      }
      unqueued.clear();
      created.clear();
      updates.clear();
      updated.clear();
      queueChanges.clear();
    }
  }

  /** A fold whose statements go to {@code writes}, in order. */
  Fold fold(Executor writes) {
    return new Fold(writes);
  }

  /**
   * Writes a batch: the new rows first, in multi-row inserts that skip rows which exist, then the
   * updates, in the order of their events, as one JDBC batch. A reservation's creating event comes
   * before its other events, so its order is kept.
   */
  private void write(List<Change> batch) {
    write(batch, null);
  }

  /**
   * {@link #write(List)}, or when a fold is given, the new rows through its bulk writes and the
   * updates by {@link #applyInBulk}.
   */
  private void write(List<Change> batch, Fold fold) {
    List<String> unqueued = new ArrayList<>();
    List<Object[]> creations = new ArrayList<>();
    List<Update> updates = new ArrayList<>();
    List<Change> queueChanges = new ArrayList<>();
    for (Change change : batch) {
      if (change instanceof Unqueued replaced) {
        unqueued.add(replaced.reservationId());
      } else if (change instanceof Creation creation) {
        creations.add(creation.values());
      } else if (change instanceof Update update) {
        updates.add(update);
      } else {
        queueChanges.add(change);
      }
    }
    if (fold != null) {
      inChunks(unqueued, deleteUnqueued);
      fold.rows.write(creations);
      applyInBulk(updates, fold.updateRows);
    } else {
      insert(creations);
      if (!updates.isEmpty()) {
        int[] counts = jdbc.batchUpdate(update, updates.stream().map(Update::arguments).toList());
        for (int i = 0; i < counts.length; i++) {
          if (counts[i] == 0) {
            notApplied(updates.get(i));
          }
        }
      }
    }
    writeQueues(queueChanges);
  }

  /**
   * The queue changes of a batch, in order: each run of joins in multi-row inserts that skip rows
   * which exist, each run of departures in deletes.
   */
  private void writeQueues(List<Change> changes) {
    List<Object> joins = new ArrayList<>();
    List<String> departures = new ArrayList<>();
    for (Change change : changes) {
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

  /**
   * A fold's updates of rows it wrote in an earlier batch (a confirmation or release that came more
   * than a window after its reservation, as most do in a shop whose buyers pay minutes after they
   * reserve): loaded into {@link #FOLD_UPDATES} in bulk, then applied by one statement per round,
   * with the same condition as {@link #UPDATE} each. An update event by event cost the database a
   * statement's execution per row.
   */
  private void applyInBulk(List<Update> updates, BulkRows loaded) {
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
      loaded.write(values);
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

  /** New rows in multi-row inserts that skip rows which exist. */
  private void insert(List<Object[]> creations) {
    for (int from = 0; from < creations.size(); from += MAX_ROWS_PER_INSERT) {
      List<Object[]> chunk =
          creations.subList(from, Math.min(creations.size(), from + MAX_ROWS_PER_INSERT));
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

  private static void unknown(Update update) {
    log.warn(
        "The {} of reservation {} (sequence {}) names a reservation the read model does not know",
        update.what(),
        update.reservationId(),
        update.sequence());
  }

  boolean exists(String reservationId) {
    return !jdbc.queryForList(exists, Integer.class, reservationId).isEmpty();
  }

  Optional<ReservationView> find(String reservationId) {
    return jdbc
        .query(
            "SELECT " + COLUMNS + " FROM reservation_view WHERE reservation_id = ?",
            (resultSet, rowNumber) -> view(resultSet),
            reservationId)
        .stream()
        .findFirst();
  }

  /** Empties the read model, before a replay rebuilds it. */
  void deleteAll() {
    // DELETE rather than TRUNCATE: TRUNCATE commits on its own, outside the reset's transaction.
    jdbc.update("DELETE FROM reservation_view");
    jdbc.update("DELETE FROM sku_queue");
  }

  private static ReservationView view(ResultSet row) throws SQLException {
    Status status = Status.valueOf(row.getString("status"));
    String confirmed = row.getString("confirmed_lines_json");
    return new ReservationView(
        row.getString("reservation_id"),
        row.getString("user_id"),
        status == Status.ABANDONED ? Status.RELEASED.name() : status.name(),
        lines(row.getString("lines_json")),
        instant(row, "created_at"),
        instant(row, "expires_at"),
        instant(row, "confirmed_at"),
        confirmed == null ? null : lines(confirmed),
        instant(row, "released_at"),
        row.getString("release_reason"));
  }

  /** Lines in the format of the {@code lines_json} and {@code confirmed_lines_json} columns. */
  private static String json(List<ReservationLine> lines) {
    return JSON.writeValueAsString(
        lines.stream().map(line -> new StoredLine(line.skuId(), line.quantity())).toList());
  }

  private static List<ReservationLine> lines(String json) {
    return JSON.readValue(json, STORED_LINES).stream()
        .map(line -> new ReservationLine(line.skuId(), line.quantity()))
        .toList();
  }

  /**
   * The column's value for an instant: UTC, to the microsecond (what DATETIME(6) keeps), passed as
   * a LocalDateTime so that no driver converts it to or from a session time zone.
   */
  private static LocalDateTime utc(Instant instant) {
    return instant == null ? null : BulkValues.utc(instant);
  }

  private static Instant instant(ResultSet row, String column) throws SQLException {
    LocalDateTime value = row.getObject(column, LocalDateTime.class);
    return value == null ? null : value.toInstant(ZoneOffset.UTC);
  }
}
