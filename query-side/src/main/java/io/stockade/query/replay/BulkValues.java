package io.stockade.query.replay;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.springframework.jdbc.core.PreparedStatementSetter;

/**
 * The parameters of a multi-row insert set by their types, without the driver's search for a codec
 * per value or Spring's per-value handling, which cost more than the insert itself on the client in
 * a replay's fold. A {@link LocalDateTime} (UTC, to the microsecond, as the read models store it)
 * goes as its DATETIME(6) text, so that no driver converts it to or from a time zone.
 */
public final class BulkValues {

  private BulkValues() {}

  /** Sets {@code values} in order: strings, longs, integers, UTC date-times and nulls. */
  public static PreparedStatementSetter of(List<Object> values) {
    return statement -> set(statement, values);
  }

  private static void set(PreparedStatement statement, List<Object> values) throws SQLException {
    for (int i = 0; i < values.size(); i++) {
      Object value = values.get(i);
      int index = i + 1;
      if (value == null) {
        statement.setNull(index, Types.NULL);
      } else if (value instanceof String text) {
        statement.setString(index, text);
      } else if (value instanceof Long number) {
        statement.setLong(index, number);
      } else if (value instanceof Integer number) {
        statement.setInt(index, number);
      } else if (value instanceof LocalDateTime time) {
        statement.setString(index, dateTime(time));
      } else {
        statement.setObject(index, value);
      }
    }
  }

  /**
   * An instant as a column value: UTC, to the microsecond (what DATETIME(6) keeps), as a
   * LocalDateTime, so that no driver converts it to or from a session time zone. Not through {@code
   * LocalDateTime.ofInstant}, which builds the offset's rules anew at every call on Java 17.
   */
  public static LocalDateTime utc(Instant instant) {
    return LocalDateTime.ofEpochSecond(
        instant.getEpochSecond(), instant.getNano() / 1000 * 1000, ZoneOffset.UTC);
  }

  /** {@code yyyy-MM-dd HH:mm:ss.SSSSSS}, for a year from 0 to 9999. */
  static String dateTime(LocalDateTime time) {
    int year = time.getYear();
    if (year < 0 || year > 9999) {
      throw new IllegalArgumentException("A year DATETIME cannot store: " + time);
    }
    char[] text = new char[26];
    put(text, 0, year, 4);
    text[4] = '-';
    put(text, 5, time.getMonthValue(), 2);
    text[7] = '-';
    put(text, 8, time.getDayOfMonth(), 2);
    text[10] = ' ';
    put(text, 11, time.getHour(), 2);
    text[13] = ':';
    put(text, 14, time.getMinute(), 2);
    text[16] = ':';
    put(text, 17, time.getSecond(), 2);
    text[19] = '.';
    put(text, 20, time.getNano() / 1000, 6);
    return new String(text);
  }

  private static void put(char[] text, int at, int value, int width) {
    for (int i = at + width - 1; i >= at; i--) {
      text[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }
}
