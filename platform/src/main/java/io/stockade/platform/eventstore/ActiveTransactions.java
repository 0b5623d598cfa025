package io.stockade.platform.eventstore;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The InnoDB transactions active on the database server, as {@code information_schema.innodb_trx}
 * lists them, each named by its connection and its start ({@code <thread id>@<trx_started>}): which
 * transaction a connection runs changes only when its start does, so a name that is gone from a
 * later list is a transaction that has ended (a name that comes back is only waited for again).
 *
 * <p>InnoDB serves that table from a cache, refreshed only once nobody has read it for 0.1 s: a
 * list can be older than the moment it is asked for, by any length of time while other sessions
 * keep reading it. So each list is taken inside a transaction of its own, begun after the moment
 * the list must show, by a statement that carries a fresh token in its text; a list is fresh only
 * if it shows that transaction running that statement ({@code trx_query}), which proves it was read
 * during the statement. A list without it is stale and answers nothing.
 *
 * <p>Reading the table needs the {@code PROCESS} privilege, on MariaDB 10.11 as on MySQL 8; without
 * it both answer error 1227, and {@link #list()} throws {@link NotPermitted}.
 */
public final class ActiveTransactions {

  /**
   * {@code ER_SPECIFIC_ACCESS_DENIED_ERROR}: "you need (at least one of) the PROCESS privilege".
   */
  private static final int SPECIFIC_ACCESS_DENIED = 1227;

  /** The account may not read {@code information_schema.innodb_trx}. */
  public static final class NotPermitted extends RuntimeException {
    NotPermitted(SQLException cause) {
      super(cause.getMessage(), cause, false, false);
    }
  }

  private final JdbcTemplate jdbc;

  public ActiveTransactions(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * The transactions active now, besides the one that lists them; empty when InnoDB answered from a
   * list older than this call.
   */
  public Optional<Set<String>> list() {
    String token = UUID.randomUUID().toString().replace("-", "");
    // The token is in the statement's text twice: in the comment, and in the pattern that finds
    // the statement among the transactions' current statements.
    String sql =
        "select /* stockade-event-feed "
            + token
            + " */ trx_mysql_thread_id, trx_started,"
            + " trx_mysql_thread_id = connection_id() and trx_query like '%"
            + token
            + "%' from information_schema.innodb_trx";
    return jdbc.execute((ConnectionCallback<Optional<Set<String>>>) c -> list(c, sql));
  }

  private static Optional<Set<String>> list(Connection connection, String sql) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(false);
    try (Statement statement = connection.createStatement()) {
      // A consistent read starts this connection's InnoDB transaction now, at any isolation
      // level: the list must show it to be fresh.
      statement.executeQuery("select global_index from domain_event_entry limit 1").close();
      Set<String> others = new HashSet<>();
      boolean fresh = false;
      try (ResultSet rows = statement.executeQuery(sql)) {
        while (rows.next()) {
          if (rows.getBoolean(3)) {
            fresh = true;
          } else {
            others.add(rows.getLong(1) + "@" + rows.getString(2));
          }
        }
      }
      return fresh ? Optional.of(others) : Optional.empty();
    } catch (SQLException e) {
      if (e.getErrorCode() == SPECIFIC_ACCESS_DENIED) {
        throw new NotPermitted(e);
      }
      throw e;
    } finally {
      connection.rollback();
      connection.setAutoCommit(autoCommit);
    }
  }
}
