package io.stockade.platform.jdbc;

/** The SQL of an {@code INSERT} of several rows in one statement. */
public final class MultiRowInsert {

  private MultiRowInsert() {}

  /**
   * {@code head}, then {@code row} {@code rows} times separated by commas.
   *
   * @param head the statement up to its values, {@code insert into t (a, b) values }
   * @param row one row's placeholders, {@code (?, ?)}
   */
  public static String sql(String head, String row, int rows) {
    StringBuilder sql = new StringBuilder(head.length() + rows * (row.length() + 1));
    sql.append(head).append(row);
    for (int i = 1; i < rows; i++) {
      sql.append(',').append(row);
    }
    return sql.toString();
  }
}
