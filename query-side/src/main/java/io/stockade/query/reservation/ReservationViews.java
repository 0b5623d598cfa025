package io.stockade.query.reservation;

import static io.stockade.query.reservation.ReservationRow.instant;
import static io.stockade.query.reservation.ReservationRow.lines;

import io.stockade.api.reservation.ReservationView;
import io.stockade.query.reservation.ReservationRow.Status;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The reads of {@code reservation_view} for the query handler: a reservation as the API shows it.
 * Always the model's own table, never a replay's copy.
 */
@Repository
class ReservationViews {

  private final JdbcTemplate jdbc;

  ReservationViews(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  Optional<ReservationView> find(String reservationId) {
    return jdbc
        .query(
            "SELECT " + ReservationRow.COLUMNS + " FROM reservation_view WHERE reservation_id = ?",
            (resultSet, rowNumber) -> view(resultSet),
            reservationId)
        .stream()
        .findFirst();
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
}
