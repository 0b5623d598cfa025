package io.stockade.query.stock;

import io.stockade.query.replay.BulkValues;
import io.stockade.query.stock.StockChanges.Change;
import io.stockade.query.stock.StockChanges.Settings;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The tables a writer of the stock read model writes, {@code stock_level} and {@code stock_ledger}:
 * the model's own or a replay's copies ({@link #into}); and their rows as both writers ({@link
 * StockRows}, {@link StockFold}) build them: a ledger entry's values, and a SKU's changes summed
 * ({@link Sum}) into its row or its upsert.
 */
final class StockTables {

  static final List<String> LEDGER_COLUMNS =
      List.of(
          "sku_id",
          "event_id",
          "global_index",
          "occurred_at",
          "event_type",
          "reference",
          "total_change",
          "reserved_change",
          "sold_change");

  static final List<String> LEVEL_COLUMNS =
      List.of(
          "sku_id",
          "total",
          "reserved",
          "sold",
          "per_user_limit",
          "opens_at",
          "closes_at",
          "prequeue_seconds",
          "paused",
          "paused_reason",
          "activity",
          "registered_at",
          "updated_at");

  /** The upsert of a SKU's row: its numbers added, what the events set of its sale replaced. */
  private static final String UPSERT =
      "insert into %s ("
          + String.join(", ", LEVEL_COLUMNS)
          + ") values ("
          + String.join(", ", Collections.nCopies(LEVEL_COLUMNS.size(), "?"))
          + ") on duplicate key update total = total + ?, reserved = reserved + ?,"
          + " sold = sold + ?,"
          + " per_user_limit = case when ? then ? else per_user_limit end,"
          + " opens_at = case when ? then ? else opens_at end,"
          + " closes_at = case when ? then ? else closes_at end,"
          + " prequeue_seconds = case when ? then ? else prequeue_seconds end,"
          + " paused = case when ? then ? else paused end,"
          + " paused_reason = case when ? then ? else paused_reason end,"
          + " activity = activity + ?,"
          + " registered_at = coalesce(?, registered_at),"
          + " updated_at = greatest(updated_at, ?)";

  private final JdbcTemplate jdbc;
  private final String levelTable;
  private final String ledgerTable;

  StockTables(JdbcTemplate jdbc) {
    this(jdbc, "");
  }

  private StockTables(JdbcTemplate jdbc, String suffix) {
    this.jdbc = jdbc;
    this.levelTable = "stock_level" + suffix;
    this.ledgerTable = "stock_ledger" + suffix;
  }

  /**
   * The tables named as the model's with {@code suffix} appended: a replay's copies ({@link
   * io.stockade.query.replay.ReadModelFold}).
   */
  StockTables into(String suffix) {
    return new StockTables(jdbc, suffix);
  }

  JdbcTemplate jdbc() {
    return jdbc;
  }

  String levelTable() {
    return levelTable;
  }

  String ledgerTable() {
    return ledgerTable;
  }

  /** The upsert of a SKU's row into these tables, whose parameters are {@link Sum#upsert}'s. */
  String upsert() {
    return UPSERT.formatted(levelTable);
  }

  /** A change and what its event sets of the SKU's sale. */
  record Applied(Change change, Settings settings) {}

  /** Changes of one SKU's row not written yet: their sums, and what they set of its sale. */
  record Sum(
      long total,
      long reserved,
      long sold,
      Instant latest,
      Settings settings,
      Instant registeredAt,
      long activity) {

    static Sum of(Applied applied) {
      Change change = applied.change();
      Settings settings = applied.settings();
      return new Sum(
          change.total(),
          change.reserved(),
          change.sold(),
          change.occurredAt(),
          settings,
          settings.registers() ? change.occurredAt() : null,
          1);
    }

    Sum plus(Sum other) {
      return new Sum(
          total + other.total(),
          reserved + other.reserved(),
          sold + other.sold(),
          latest.isAfter(other.latest()) ? latest : other.latest(),
          settings.then(other.settings()),
          other.registeredAt() != null ? other.registeredAt() : registeredAt,
          activity + other.activity());
    }

    /** The SKU's row as a new one: the values of {@link #LEVEL_COLUMNS}. */
    Object[] row(String skuId) {
      Settings.Limit limit = settings.limit();
      Settings.Window window = settings.window();
      Settings.Pause pause = settings.pause();
      return new Object[] {
        skuId,
        total,
        reserved,
        sold,
        limit == null ? null : limit.perUserLimit(),
        window == null || window.opensAt() == null ? null : utc(window.opensAt()),
        window == null || window.closesAt() == null ? null : utc(window.closesAt()),
        window == null ? 0 : window.prequeueSeconds(),
        pause != null && pause.paused() ? 1 : 0,
        pause == null ? null : pause.reason(),
        activity,
        registeredAt == null ? null : utc(registeredAt),
        utc(latest)
      };
    }

    /** The parameters of {@link #UPSERT}: the new row's, then those of its update. */
    Object[] upsert(String skuId) {
      Object[] row = row(skuId);
      Settings.Limit limit = settings.limit();
      Settings.Window window = settings.window();
      Settings.Pause pause = settings.pause();
      List<Object> parameters = new ArrayList<>(Arrays.asList(row));
      parameters.addAll(
          Arrays.asList(
              total,
              reserved,
              sold,
              limit != null,
              column(row, "per_user_limit"),
              window != null,
              column(row, "opens_at"),
              window != null,
              column(row, "closes_at"),
              window != null,
              column(row, "prequeue_seconds"),
              pause != null,
              column(row, "paused"),
              pause != null,
              column(row, "paused_reason"),
              activity,
              column(row, "registered_at"),
              column(row, "updated_at")));
      return parameters.toArray();
    }

    /** The value of a column of {@link #LEVEL_COLUMNS} in a {@link #row}, by its name. */
    private static Object column(Object[] row, String name) {
      int index = LEVEL_COLUMNS.indexOf(name);
      if (index < 0) {
        throw new IllegalArgumentException("stock_level has no column " + name);
      }
      return row[index];
    }
  }

  /**
   * A ledger entry's values, in the order of {@link #LEDGER_COLUMNS}; the global index -1 for an
   * event {@code globalIndexes} does not hold.
   */
  static Object[] ledgerRow(Change change, Map<String, Long> globalIndexes) {
    return new Object[] {
      change.skuId(),
      change.eventId(),
      globalIndexes.getOrDefault(change.eventId(), -1L),
      utc(change.occurredAt()),
      change.eventType(),
      change.reference(),
      change.total(),
      change.reserved(),
      change.sold()
    };
  }

  /**
   * An instant as a column value: UTC, to the microsecond (what DATETIME(6) keeps), passed as a
   * LocalDateTime so that no driver converts it to or from a session time zone (nor builds a date
   * format for it, as some do for java.sql.Timestamp).
   */
  static LocalDateTime utc(Instant instant) {
    return BulkValues.utc(instant);
  }
}
