package io.stockade.query.reservation;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.ReservationView;
import io.stockade.query.replay.BulkValues;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
class ReservationRows {

  /** A reservation's state as stored; {@link #ABANDONED} is shown as RELEASED by the API. */
  enum Status {
    RESERVED,
    CONFIRMED,
    RELEASED,
    ABANDONED
  }

  /** A line as stored in the {@code lines_json} column: {@code {"skuId": "...", "quantity": 2}}. */
  @JsonPropertyOrder({"skuId", "quantity"})
  record StoredLine(String skuId, int quantity) {}

  private static final TypeReference<List<StoredLine>> STORED_LINES = new TypeReference<>() {};

  /** The storage format of the lines does not follow the web layer's JSON settings. */
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static final String COLUMNS =
      "reservation_id, user_id, status, lines_json, created_at, expires_at, confirmed_at,"
          + " released_at, release_reason, last_sequence, updated_at";

  private static final Logger log = LoggerFactory.getLogger(ReservationRows.class);

  private final JdbcTemplate jdbc;

  ReservationRows(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * Creates the row of a reservation; does nothing when it exists (a stream's first event is the
   * only one that creates, so an existing row has applied it or a later one already).
   */
  void create(
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
          JSON.writeValueAsString(
              lines.stream().map(line -> new StoredLine(line.skuId(), line.quantity())).toList()),
          utc(createdAt),
          utc(expiresAt),
          null,
          utc(releasedAt),
          releaseReason,
          sequence,
          utc(at)
        });
  }

  /** Confirms the row, unless it is missing or has applied this sequence or a later. */
  void confirm(String reservationId, Instant confirmedAt, long sequence, Instant at) {
    accept(confirmation(reservationId, confirmedAt, sequence, at));
  }

  private static Update confirmation(
      String reservationId, Instant confirmedAt, long sequence, Instant at) {
    return new Update(
        reservationId,
        "confirmation",
        sequence,
        new Object[] {
          Status.CONFIRMED.name(),
          utc(confirmedAt),
          null,
          null,
          sequence,
          utc(at),
          reservationId,
          sequence
        });
  }

  /** Releases the row, unless it is missing or has applied this sequence or a later. */
  void release(String reservationId, Instant releasedAt, String reason, long sequence, Instant at) {
    accept(releasing(reservationId, releasedAt, reason, sequence, at));
  }

  private static Update releasing(
      String reservationId, Instant releasedAt, String reason, long sequence, Instant at) {
    return new Update(
        reservationId,
        "release",
        sequence,
        new Object[] {
          Status.RELEASED.name(),
          null,
          utc(releasedAt),
          reason,
          sequence,
          utc(at),
          reservationId,
          sequence
        });
  }

  /** A change waiting for its batch to be written. */
  private sealed interface Change permits Creation, Update {}

  /** The columns of a new row, in the order of {@link #COLUMNS}. */
  private record Creation(Object[] values) implements Change {}

  /** The arguments of {@link #UPDATE}. */
  private record Update(String reservationId, String what, long sequence, Object[] arguments)
      implements Change {}

  private static final String PENDING = ReservationRows.class.getName() + ".pending";

  /** Rows per insert statement (eleven parameters each). */
  private static final int MAX_ROWS_PER_INSERT = 500;

  private static final String INSERT = "INSERT INTO reservation_view (" + COLUMNS + ") VALUES ";

  private static final String INSERT_ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

  private static final String UPDATE =
      "UPDATE reservation_view SET status = ?, confirmed_at = coalesce(?, confirmed_at),"
          + " released_at = coalesce(?, released_at),"
          + " release_reason = coalesce(?, release_reason), last_sequence = ?, updated_at = ?"
          + " WHERE reservation_id = ? AND last_sequence < ?";

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

  /** Changes a replay's fold holds before writing them together. */
  private static final int FOLD_WINDOW = 2000;

  /**
   * A fold into the emptied table (a replay's, see {@link ReservationReplayFold}): the rows that
   * {@link #create}, {@link #confirm} and {@link #release} would leave, written in bulk. The rows
   * created lately are held, and a later event of one of them is applied to it in memory, as its
   * conditional UPDATE would; events of rows written already wait as updates. Both go out together
   * ({@link #write}) when {@value #FOLD_WINDOW} are held: memory is bounded by the window.
   */
  final class Fold {

    private final Map<String, Creation> created = new LinkedHashMap<>();
    private final List<Change> updates = new ArrayList<>();
    private final Set<String> updated = new HashSet<>();

    void create(
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
      created.putIfAbsent(
          reservationId,
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

    void confirm(String reservationId, Instant confirmedAt, long sequence, Instant at) {
      update(confirmation(reservationId, confirmedAt, sequence, at));
    }

    void release(
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
      Object[] set = update.arguments();
      // UPDATE's SET, under its condition last_sequence < ?.
      if ((long) row[9] < update.sequence()) {
        row[2] = set[0];
        row[6] = set[1] != null ? set[1] : row[6];
        row[7] = set[2] != null ? set[2] : row[7];
        row[8] = set[3] != null ? set[3] : row[8];
        row[9] = set[4];
        row[10] = set[5];
      }
    }

    private void flushWhenFull() {
      if (created.size() + updates.size() >= FOLD_WINDOW) {
        flush();
      }
    }

    /** Writes what is held. */
    void flush() {
      List<Change> batch = new ArrayList<>(created.size() + updates.size());
      batch.addAll(created.values());
      batch.addAll(updates);
      write(batch);
      created.clear();
      updates.clear();
      updated.clear();
    }
  }

  Fold fold() {
    return new Fold();
  }

  /**
   * Writes a batch: the new rows first, in multi-row inserts that skip rows which exist, then the
   * updates, in the order of their events, as one JDBC batch. A reservation's creating event comes
   * before its other events, so its order is kept.
   */
  private void write(List<Change> batch) {
    List<Object[]> creations = new ArrayList<>();
    List<Update> updates = new ArrayList<>();
    for (Change change : batch) {
      if (change instanceof Creation creation) {
        creations.add(creation.values());
      } else {
        updates.add((Update) change);
      }
    }
    for (int from = 0; from < creations.size(); from += MAX_ROWS_PER_INSERT) {
      List<Object[]> chunk =
          creations.subList(from, Math.min(creations.size(), from + MAX_ROWS_PER_INSERT));
      jdbc.update(
          INSERT
              + String.join(", ", Collections.nCopies(chunk.size(), INSERT_ROW))
              + " ON DUPLICATE KEY UPDATE reservation_id = reservation_id",
          BulkValues.of(chunk.stream().flatMap(Arrays::stream).toList()));
    }
    if (updates.isEmpty()) {
      return;
    }
    int[] counts = jdbc.batchUpdate(UPDATE, updates.stream().map(Update::arguments).toList());
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] == 0) {
        notApplied(updates.get(i));
      }
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
      log.warn(
          "The {} of reservation {} (sequence {}) names a reservation the read model does not know",
          update.what(),
          update.reservationId(),
          update.sequence());
    }
  }

  boolean exists(String reservationId) {
    return !jdbc.queryForList(
            "SELECT 1 FROM reservation_view WHERE reservation_id = ?", Integer.class, reservationId)
        .isEmpty();
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
  }

  private static ReservationView view(ResultSet row) throws SQLException {
    Status status = Status.valueOf(row.getString("status"));
    List<ReservationLine> lines =
        JSON.readValue(row.getString("lines_json"), STORED_LINES).stream()
            .map(line -> new ReservationLine(line.skuId(), line.quantity()))
            .toList();
    return new ReservationView(
        row.getString("reservation_id"),
        row.getString("user_id"),
        status == Status.ABANDONED ? Status.RELEASED.name() : status.name(),
        lines,
        instant(row, "created_at"),
        instant(row, "expires_at"),
        instant(row, "confirmed_at"),
        instant(row, "released_at"),
        row.getString("release_reason"));
  }

  /**
   * The column's value for an instant: UTC, to the microsecond (what DATETIME(6) keeps), passed as
   * a LocalDateTime so that no driver converts it to or from a session time zone.
   */
  private static LocalDateTime utc(Instant instant) {
    return instant == null
        ? null
        : LocalDateTime.ofInstant(instant.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
  }

  private static Instant instant(ResultSet row, String column) throws SQLException {
    LocalDateTime value = row.getObject(column, LocalDateTime.class);
    return value == null ? null : value.toInstant(ZoneOffset.UTC);
  }
}
