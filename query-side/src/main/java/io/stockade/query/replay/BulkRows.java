package io.stockade.query.replay;

import io.stockade.platform.jdbc.MultiRowInsert;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * New rows of one table written in bulk by a replay's fold, in the caller's transaction. Where the
 * driver is MariaDB's and the server allows it, they go as one {@code LOAD DATA LOCAL INFILE} per
 * call, fed from memory: the server parses a tab-separated line per row instead of a multi-row
 * {@code INSERT}'s SQL, which took about half the database's CPU per row in a replay, and the
 * client sends text instead of binding parameters. Otherwise (another driver, or a server or driver
 * with the capability off) they go in multi-row {@code INSERT}s, as before; the first call finds
 * out.
 *
 * <p>A local load turns what an {@code INSERT} would refuse (a value too long, a bad number) into
 * warnings and skips rows whose key exists; so every warning but a skipped duplicate fails the
 * call, and a duplicate fails it too unless the table's writes {@link Duplicates#SKIP skip} them. A
 * failed statement changes nothing, and the call's exception fails the replay's transaction.
 */
public final class BulkRows {

  /** What a row whose key exists means. */
  public enum Duplicates {
    /** An error: the fold writes each key once. */
    FAIL,
    /** The row is left as it is, as {@code INSERT ... ON DUPLICATE KEY UPDATE key = key} does. */
    SKIP
  }

  private static final Logger log = LoggerFactory.getLogger(BulkRows.class);

  /** Rows per {@code INSERT} when loading is not possible. */
  private static final int ROWS_PER_INSERT = 500;

  /** ER_DUP_ENTRY. */
  private static final int DUPLICATE_ENTRY = 1062;

  /**
   * What servers and drivers answer when local loading is off: ER_NOT_ALLOWED_COMMAND (1148),
   * MySQL's ER_CLIENT_LOCAL_FILES_DISABLED (3948) and MariaDB's ER_LOAD_INFILE_CAPABILITY_DISABLED
   * (4166, also the driver's own refusal). The statement has changed nothing then.
   */
  private static final Set<Integer> LOADING_OFF = Set.of(1148, 3948, 4166);

  private final JdbcTemplate jdbc;
  private final String table;
  private final List<String> columns;
  private final Duplicates duplicates;
  private final String load;
  private final String insert;

  /** Null until the first write has found out whether this connection may load. */
  private Boolean loading;

  public BulkRows(JdbcTemplate jdbc, String table, List<String> columns, Duplicates duplicates) {
    this.jdbc = jdbc;
    this.table = table;
    this.columns = List.copyOf(columns);
    this.duplicates = duplicates;
    this.load =
        "LOAD DATA LOCAL INFILE 'rows'"
            + (duplicates == Duplicates.SKIP ? " IGNORE" : "")
            + " INTO TABLE "
            + table
            + " CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\'"
            + " LINES TERMINATED BY '\\n' ("
            + String.join(", ", columns)
            + ")";
    this.insert = "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES ";
  }

  /** Whether the writes so far went by local load (null before the first). */
  public Boolean loading() {
    return loading;
  }

  /**
   * Writes {@code rows}, each the values of the columns in order: strings, longs, integers, UTC
   * date-times ({@link BulkValues#dateTime}) and nulls.
   *
   * @return the rows written (fewer than given only for skipped duplicates)
   */
  public int write(List<Object[]> rows) {
    if (rows.isEmpty()) {
      return 0;
    }
    if (!Boolean.FALSE.equals(loading)) {
      Integer loaded = jdbc.execute((ConnectionCallback<Integer>) c -> load(c, rows));
      if (loaded != null) {
        loading = true;
        return loaded;
      }
      loading = false;
    }
    return insert(rows);
  }

  /** The rows loaded, or null when this connection may not load (nothing was written then). */
  private Integer load(Connection connection, List<Object[]> rows) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      if (!statement.isWrapperFor(org.mariadb.jdbc.Statement.class)) {
        log.info("Rows of {} go in multi-row inserts: the driver is not MariaDB's", table);
        return null;
      }
      statement
          .unwrap(org.mariadb.jdbc.Statement.class)
          .setLocalInfileInputStream(new ByteArrayInputStream(lines(rows)));
      try {
        statement.execute(load);
      } catch (SQLException e) {
        if (loading == null && LOADING_OFF.contains(e.getErrorCode())) {
          log.info("Rows of {} go in multi-row inserts: {}", table, e.getMessage());
          return null;
        }
        throw e;
      }
      int loaded = statement.getUpdateCount();
      check(statement.getWarnings(), rows.size(), loaded);
      return loaded;
    }
  }

  private void check(SQLWarning warnings, int sent, int loaded) throws SQLException {
    for (SQLWarning warning = warnings; warning != null; warning = warning.getNextWarning()) {
      if (warning.getErrorCode() != DUPLICATE_ENTRY || duplicates == Duplicates.FAIL) {
        throw new SQLException(
            "Loading rows of " + table + " gave a warning: " + warning.getMessage(),
            warning.getSQLState(),
            warning.getErrorCode());
      }
    }
    if (loaded > sent || (loaded < sent && duplicates == Duplicates.FAIL)) {
      throw new SQLException(sent + " rows sent to " + table + " but " + loaded + " loaded");
    }
  }

  private int insert(List<Object[]> rows) {
    String row = "(" + String.join(", ", Collections.nCopies(columns.size(), "?")) + ")";
    int written = 0;
    for (int from = 0; from < rows.size(); from += ROWS_PER_INSERT) {
      List<Object[]> chunk = rows.subList(from, Math.min(rows.size(), from + ROWS_PER_INSERT));
      List<Object> values = new ArrayList<>(chunk.size() * columns.size());
      for (Object[] rowValues : chunk) {
        values.addAll(Arrays.asList(rowValues));
      }
      written +=
          jdbc.update(
              MultiRowInsert.sql(insert, row, chunk.size())
                  + (duplicates == Duplicates.SKIP
                      ? " ON DUPLICATE KEY UPDATE " + columns.get(0) + " = " + columns.get(0)
                      : ""),
              BulkValues.of(values));
    }
    return written;
  }

  /** The rows as the load's lines: fields tab-separated, {@code \N} for null, UTF-8. */
  static byte[] lines(List<Object[]> rows) {
    StringBuilder text = new StringBuilder(rows.size() * 160);
    for (Object[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        if (i > 0) {
          text.append('\t');
        }
        field(text, row[i]);
      }
      text.append('\n');
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void field(StringBuilder text, Object value) {
    if (value == null) {
      text.append("\\N");
    } else if (value instanceof String string) {
      escaped(text, string);
    } else if (value instanceof Long number) {
      text.append(number.longValue());
    } else if (value instanceof Integer number) {
      text.append(number.intValue());
    } else if (value instanceof LocalDateTime time) {
      text.append(BulkValues.dateTime(time));
    } else {
      throw new IllegalArgumentException("Not a value a fold writes: " + value.getClass());
    }
  }

  /**
   * The escapes {@code LOAD DATA} reads back with {@code ESCAPED BY '\\'}. Most values have none
   * (identifiers, the lines' JSON): they are appended whole, not a character at a time, which took
   * half the writing thread's time in a replay's profile.
   */
  private static boolean escapes(char c) {
    return c == '\\' || c == '\t' || c == '\n' || c == '\r' || c == '\0';
  }

  private static void escaped(StringBuilder text, String string) {
    int plain = 0;
    while (plain < string.length() && !escapes(string.charAt(plain))) {
      plain++;
    }
    text.append(string, 0, plain);
    for (int i = plain; i < string.length(); i++) {
      char c = string.charAt(i);
      switch (c) {
        case '\\' -> text.append("\\\\");
        case '\t' -> text.append("\\t");
        case '\n' -> text.append("\\n");
        case '\r' -> text.append("\\r");
        case '\0' -> text.append("\\0");
        default -> text.append(c);
      }
    }
  }
}
