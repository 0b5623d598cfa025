package io.stockade.query.replay;

import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The tables a replay builds beside the read models' own, and the switch to them. Each model's
 * table {@code t} gets a copy {@code t_replay}, created empty with the same definition; at the end
 * one {@code RENAME TABLE} moves every {@code t} to {@code t_replaced} and every copy to {@code t}.
 * MariaDB and MySQL rename all of them in one atomic step, waiting for the transactions that use
 * them: a statement names either the old tables or the rebuilt ones, never some of each, on every
 * instance. Each of these statements commits on its own (DDL): none runs in a transaction.
 */
@Component
class ReplayTables {

  /** What a table's copy is named with. */
  static final String COPY = "_replay";

  /** What a replaced table is named with until it is dropped. */
  static final String REPLACED = "_replaced";

  /** How long the rename waits for the transactions that use the tables. */
  static final int RENAME_WAIT_SECONDS = 2;

  private final JdbcTemplate jdbc;

  ReplayTables(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /** Empty copies of {@code tables}: those a replay left before are dropped first. */
  void createCopies(List<String> tables) {
    drop(tables, COPY);
    for (String table : tables) {
      jdbc.execute("CREATE TABLE " + table + COPY + " LIKE " + table);
    }
  }

  /** Drops the tables named as {@code tables} with {@code suffix}, those that exist. */
  void drop(List<String> tables, String suffix) {
    for (String table : tables) {
      jdbc.execute("DROP TABLE IF EXISTS " + table + suffix);
    }
  }

  /** How many of the tables named as {@code tables} with {@code suffix} exist. */
  int existing(List<String> tables, String suffix) {
    int existing = 0;
    for (String table : tables) {
      Integer found =
          jdbc.queryForObject(
              "select count(*) from information_schema.tables"
                  + " where table_schema = database() and table_name = ?",
              Integer.class,
              table + suffix);
      existing += found == null ? 0 : found;
    }
    return existing;
  }

  /**
   * The tables whose copy is not defined as they are now (columns, indexes): a migration changed
   * them while the copies were built, and the copies must not replace them.
   */
  List<String> changedSinceCopied(List<String> tables) {
    List<String> changed = new ArrayList<>();
    for (String table : tables) {
      if (!definition(table).equals(definition(table + COPY))) {
        changed.add(table);
      }
    }
    return changed;
  }

  /** A table's columns and indexes, in order, as the server describes them. */
  private List<String> definition(String table) {
    List<String> definition =
        new ArrayList<>(
            jdbc.queryForList(
                "select concat_ws('|', column_name, column_type, is_nullable,"
                    + " coalesce(column_default, 'NULL'), coalesce(collation_name, ''))"
                    + " from information_schema.columns"
                    + " where table_schema = database() and table_name = ?"
                    + " order by ordinal_position",
                String.class,
                table));
    definition.addAll(
        jdbc.queryForList(
            "select concat_ws('|', index_name, seq_in_index, column_name, non_unique)"
                + " from information_schema.statistics"
                + " where table_schema = database() and table_name = ?"
                + " order by index_name, seq_in_index",
            String.class,
            table));
    return definition;
  }

  /**
   * Puts the copies in the place of the tables, all at once; the tables become {@code t_replaced}
   * (those of an earlier switch dropped first). Fails, changing nothing, when a copy is missing or
   * when a transaction still uses a table after {@value #RENAME_WAIT_SECONDS} s: a rename that
   * waits for its lock makes every statement on those tables that comes after it wait too, so it
   * gives up soon and is tried again, rather than hold the reads up behind a long transaction.
   */
  void switchToCopies(List<String> tables) {
    drop(tables, REPLACED);
    List<String> renames = new ArrayList<>();
    for (String table : tables) {
      renames.add(table + " TO " + table + REPLACED);
      renames.add(table + COPY + " TO " + table);
    }
    jdbc.execute(
        (ConnectionCallback<Void>)
            connection -> {
              try (Statement statement = connection.createStatement()) {
                statement.execute("SET SESSION lock_wait_timeout = " + RENAME_WAIT_SECONDS);
                try {
                  statement.execute("RENAME TABLE " + String.join(", ", renames));
                } finally {
                  statement.execute("SET SESSION lock_wait_timeout = DEFAULT");
                }
              }
              return null;
            });
  }
}
