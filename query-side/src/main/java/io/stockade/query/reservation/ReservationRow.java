package io.stockade.query.reservation;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.query.replay.BulkValues;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * A row of {@code reservation_view} as stored: its columns, its statuses, and the formats of its
 * values, which its writers ({@link ReservationRows}, {@link ReservationFold}) and its reader
 * ({@link ReservationViews}) share.
 */
final class ReservationRow {

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

  static final List<String> COLUMN_NAMES =
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

  static final String COLUMNS = String.join(", ", COLUMN_NAMES);

  /** Where {@link #COLUMNS} has the columns a change sets, and those that order the changes. */
  static final int RESERVATION_ID = 0;

  static final int STATUS = 2;
  static final int EXPIRES_AT = 5;
  static final int CONFIRMED_AT = 6;
  static final int CONFIRMED_LINES = 7;
  static final int RELEASED_AT = 8;
  static final int RELEASE_REASON = 9;
  static final int LAST_SEQUENCE = 10;
  static final int UPDATED_AT = 11;

  private ReservationRow() {}

  /** Lines in the format of the {@code lines_json} and {@code confirmed_lines_json} columns. */
  static String json(List<ReservationLine> lines) {
    return JSON.writeValueAsString(
        lines.stream().map(line -> new StoredLine(line.skuId(), line.quantity())).toList());
  }

  static List<ReservationLine> lines(String json) {
    return JSON.readValue(json, STORED_LINES).stream()
        .map(line -> new ReservationLine(line.skuId(), line.quantity()))
        .toList();
  }

  /**
   * The column's value for an instant: UTC, to the microsecond (what DATETIME(6) keeps), passed as
   * a LocalDateTime so that no driver converts it to or from a session time zone.
   */
  static LocalDateTime utc(Instant instant) {
    return instant == null ? null : BulkValues.utc(instant);
  }

  static Instant instant(ResultSet row, String column) throws SQLException {
    LocalDateTime value = row.getObject(column, LocalDateTime.class);
    return value == null ? null : value.toInstant(ZoneOffset.UTC);
  }
}
