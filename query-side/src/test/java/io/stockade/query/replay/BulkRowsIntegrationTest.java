package io.stockade.query.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A fold's rows written by a local load, against the real server: every value comes back as it was
 * sent (the characters the load's format escapes among them); what a load would only warn about (a
 * value too long, a duplicate key) fails the write and, with it, the transaction, as an {@code
 * INSERT} would; and where the driver may not load, the same rows go in inserts.
 */
@SpringBootTest
class BulkRowsIntegrationTest {

  private static final List<String> COLUMNS = List.of("id", "text", "number", "at");

  @Autowired private JdbcTemplate jdbc;
  @Autowired private TransactionTemplate transaction;

  @Value("${spring.datasource.url}")
  private String url;

  @Value("${spring.datasource.username:root}")
  private String user;

  @Value("${spring.datasource.password:}")
  private String password;

  private String table;

  @BeforeEach
  void createTable() {
    table = "bulk_rows_" + UUID.randomUUID().toString().substring(0, 8);
    jdbc.execute(
        "create table "
            + table
            + " (id varchar(8) not null primary key, text text null, number bigint null,"
            + " at datetime(6) null) engine = InnoDB default charset = utf8mb4"
            + " collate = utf8mb4_bin");
  }

  @AfterEach
  void dropTable() {
    jdbc.execute("drop table if exists " + table);
  }

  @Test
  void everyValueComesBackAsItWasSentByALocalLoad() {
    BulkRows rows = new BulkRows(jdbc, table, COLUMNS, BulkRows.Duplicates.FAIL);

    int written = transaction.execute(status -> rows.write(awkwardRows()));

    assertThat(rows.loading()).isTrue();
    assertThat(written).isEqualTo(awkwardRows().size());
    assertThat(stored()).containsExactlyElementsOf(expected(awkwardRows()));
  }

  @Test
  void withoutLocalLoadingTheSameRowsGoInInserts() {
    String noLoading = url + (url.contains("?") ? "&" : "?") + "allowLocalInfile=false";
    DriverManagerDataSource dataSource = new DriverManagerDataSource(noLoading, user, password);
    BulkRows rows =
        new BulkRows(new JdbcTemplate(dataSource), table, COLUMNS, BulkRows.Duplicates.FAIL);

    int written =
        new TransactionTemplate(new DataSourceTransactionManager(dataSource))
            .execute(status -> rows.write(awkwardRows()));

    assertThat(rows.loading()).isFalse();
    assertThat(written).isEqualTo(awkwardRows().size());
    assertThat(stored()).containsExactlyElementsOf(expected(awkwardRows()));
  }

  @Test
  void aValueTooLongFailsTheWriteAndItsTransactionInsteadOfBeingCut() {
    BulkRows rows = new BulkRows(jdbc, table, COLUMNS, BulkRows.Duplicates.FAIL);
    List<Object[]> batch = new ArrayList<>();
    batch.add(new Object[] {"fine", "a", 1L, null});
    batch.add(new Object[] {"far-too-long", "b", 2L, null});

    assertThatThrownBy(() -> transaction.execute(status -> rows.write(batch)))
        .hasMessageContaining("warning");

    assertThat(rows.loading()).isNull();
    assertThat(stored()).isEmpty();
  }

  @Test
  void aDuplicateFailsUnlessTheTableSkipsThem() {
    jdbc.update("insert into " + table + " (id, text) values ('taken', 'first')");
    List<Object[]> batch = new ArrayList<>();
    batch.add(new Object[] {"new", "n", 1L, null});
    batch.add(new Object[] {"taken", "second", 2L, null});

    BulkRows failing = new BulkRows(jdbc, table, COLUMNS, BulkRows.Duplicates.FAIL);
    assertThatThrownBy(() -> transaction.execute(status -> failing.write(batch)))
        .hasMessageContaining("Duplicate");
    assertThat(stored()).containsExactly("taken|first|null|null");

    BulkRows skipping = new BulkRows(jdbc, table, COLUMNS, BulkRows.Duplicates.SKIP);
    int written = transaction.execute(status -> skipping.write(batch));
    assertThat(written).isEqualTo(1);
    assertThat(stored()).containsExactly("new|n|1|null", "taken|first|null|null");
  }

  /** Strings with what the load's format escapes or could mistake, numbers, times and nulls. */
  private static List<Object[]> awkwardRows() {
    List<Object[]> rows = new ArrayList<>();
    rows.add(
        new Object[] {"a", "tab\there", 1L, LocalDateTime.parse("2026-12-02T10:00:00.000001")});
    rows.add(new Object[] {"b", "line\nbreak\r\nand return", -7L, null});
    rows.add(new Object[] {"c", "back\\slash \\N \\t \\\\", Long.MAX_VALUE, null});
    rows.add(new Object[] {"d", "[{\"skuId\":\"x\\\"y\",\"quantity\":2}]", 0L, null});
    rows.add(new Object[] {"e", "", 42, LocalDateTime.parse("1000-01-01T00:00:00")});
    rows.add(new Object[] {"f", "\\N", null, LocalDateTime.parse("9999-12-31T23:59:59.999999")});
    rows.add(new Object[] {"g", null, Long.MIN_VALUE, null});
    rows.add(new Object[] {"h", "ünïcödé ✓ 🛒 nul\0byte", 3L, null});
    rows.add(new Object[] {"i", "N", 4L, null});
    return rows;
  }

  private static List<String> expected(List<Object[]> rows) {
    return rows.stream()
        .map(
            row ->
                row[0]
                    + "|"
                    + row[1]
                    + "|"
                    + row[2]
                    + "|"
                    + (row[3] == null ? null : BulkValues.dateTime((LocalDateTime) row[3])))
        .sorted()
        .toList();
  }

  private List<String> stored() {
    return jdbc
        .queryForList(
            "select id, text, number, date_format(at, '%Y-%m-%d %H:%i:%s.%f') as at from "
                + table
                + " order by id")
        .stream()
        .map(
            (Map<String, Object> row) ->
                row.get("id")
                    + "|"
                    + row.get("text")
                    + "|"
                    + row.get("number")
                    + "|"
                    + row.get("at"))
        .toList();
  }
}
