package io.stockade.query.reservation;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.ReservationView;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The table {@code reservation_view}, through JDBC: the statements join the transaction of the
 * caller (the event processor's, which also stores its token). Every change is conditional on the
 * event's sequence number being greater than the row's {@code last_sequence}.
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
    jdbc.update(
        "INSERT INTO reservation_view ("
            + COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)"
            + " ON DUPLICATE KEY UPDATE reservation_id = reservation_id",
        reservationId,
        userId,
        status.name(),
        JSON.writeValueAsString(
            lines.stream().map(line -> new StoredLine(line.skuId(), line.quantity())).toList()),
        utc(createdAt),
        utc(expiresAt),
        utc(releasedAt),
        releaseReason,
        sequence,
        utc(at));
  }

  /** Whether the row changed: false when it is missing or has applied this sequence or a later. */
  boolean confirm(String reservationId, Instant confirmedAt, long sequence, Instant at) {
    return jdbc.update(
            "UPDATE reservation_view SET status = ?, confirmed_at = ?, last_sequence = ?,"
                + " updated_at = ? WHERE reservation_id = ? AND last_sequence < ?",
            Status.CONFIRMED.name(),
            utc(confirmedAt),
            sequence,
            utc(at),
            reservationId,
            sequence)
        > 0;
  }

  /** Whether the row changed: false when it is missing or has applied this sequence or a later. */
  boolean release(
      String reservationId, Instant releasedAt, String reason, long sequence, Instant at) {
    return jdbc.update(
            "UPDATE reservation_view SET status = ?, released_at = ?, release_reason = ?,"
                + " last_sequence = ?, updated_at = ? WHERE reservation_id = ? AND last_sequence < ?",
            Status.RELEASED.name(),
            utc(releasedAt),
            reason,
            sequence,
            utc(at),
            reservationId,
            sequence)
        > 0;
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
