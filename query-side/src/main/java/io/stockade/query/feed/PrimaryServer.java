package io.stockade.query.feed;

import io.stockade.platform.eventstore.ActiveTransactions;
import io.stockade.platform.eventstore.SettledHorizon;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.stereotype.Component;

/**
 * The event feed is served from the primary database server only, and the service refuses to start
 * on any other. On a replica the feed can skip events: the replica applies the primary's
 * transactions in commit order, so an event that commits after a later one arrives after it, while
 * the replica's own list of active transactions ({@link ActiveTransactions}) never shows the
 * primary's open ones; its {@link SettledHorizon} would pass the hole that the earlier event fills
 * later. (The query side writes its read models and its processors' tokens to the same database, so
 * a read-only server or a replica is no place for it anyway.)
 *
 * <p>A server is refused when it is read-only ({@code read_only}, {@code innodb_read_only}: no
 * privilege needed) or lists a replication connection ({@code SHOW ALL SLAVES STATUS} on MariaDB,
 * {@code SHOW REPLICA STATUS} on MySQL, which need {@code REPLICA MONITOR} or {@code REPLICATION
 * CLIENT}). An account without that privilege cannot tell the second: a warning says so, and the
 * server is taken for the primary, as a replica is normally read-only too.
 */
@Component
class PrimaryServer implements InitializingBean {

  private static final Logger log = LoggerFactory.getLogger(PrimaryServer.class);

  /** {@code ER_SPECIFIC_ACCESS_DENIED_ERROR}: "you need (at least one of) the ... privilege". */
  private static final int SPECIFIC_ACCESS_DENIED = 1227;

  private final JdbcTemplate jdbc;

  PrimaryServer(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  public void afterPropertiesSet() {
    refusal(jdbc)
        .ifPresent(
            reason -> {
              throw new IllegalStateException(
                  "The query side serves the event feed from the primary database server only: "
                      + reason
                      + ". A reader there can skip events (the replica applies transactions in"
                      + " commit order and does not see the primary's open ones). Point"
                      + " spring.datasource.url at the primary.");
            });
  }

  /** Why the feed may not be served from this server; empty when it is the primary. */
  static Optional<String> refusal(JdbcTemplate jdbc) {
    ReadOnly readOnly =
        jdbc.queryForObject(
            "select @@read_only, @@innodb_read_only",
            (row, index) -> new ReadOnly(row.getBoolean(1), row.getBoolean(2)));
    if (readOnly.server() || readOnly.innodb()) {
      return Optional.of(
          "the server is read-only (read_only="
              + (readOnly.server() ? 1 : 0)
              + ", innodb_read_only="
              + (readOnly.innodb() ? 1 : 0)
              + ")");
    }
    String version = jdbc.queryForObject("select version()", String.class);
    String sql =
        version != null && version.contains("MariaDB")
            ? "show all slaves status"
            : "show replica status";
    try {
      RowMapper<String> source = (row, index) -> row.getString(sourceColumn(row));
      return jdbc.query(sql, source).stream()
          .findFirst()
          .map(host -> "the server is a replica of " + host);
    } catch (DataAccessException e) {
      if (!deniedAccess(e)) {
        throw e;
      }
      log.warn(
          "The event feed cannot tell whether its database server is a replica ({}); it takes the"
              + " server for the primary. Grant REPLICA MONITOR (MariaDB) or REPLICATION CLIENT"
              + " (MySQL) to the query side's account to have it checked: on a replica the feed"
              + " can skip events.",
          e.getMostSpecificCause().getMessage());
      return Optional.empty();
    }
  }

  /**
   * MariaDB and MySQL before 8.0.22 name the primary {@code Master_Host}; MySQL now, {@code
   * Source_Host}.
   */
  private static int sourceColumn(ResultSet row) throws SQLException {
    ResultSetMetaData meta = row.getMetaData();
    for (int column = 1; column <= meta.getColumnCount(); column++) {
      String name = meta.getColumnLabel(column);
      if (name.equalsIgnoreCase("Master_Host") || name.equalsIgnoreCase("Source_Host")) {
        return column;
      }
    }
    return 1;
  }

  private static boolean deniedAccess(DataAccessException e) {
    return e.getMostSpecificCause() instanceof SQLException sql
        && sql.getErrorCode() == SPECIFIC_ACCESS_DENIED;
  }

  private record ReadOnly(boolean server, boolean innodb) {}
}
