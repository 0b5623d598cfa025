package io.stockade.query.stock;

import io.stockade.api.sku.SaleStatus;
import io.stockade.api.stock.StockLevel;
import io.stockade.platform.jdbc.MultiRowInsert;
import io.stockade.query.replay.BulkRows;
import io.stockade.query.replay.BulkValues;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Repository;

/** The stock read model's tables: {@code stock_level} and {@code stock_ledger}. */
@Repository
class StockLevels implements StockChanges.Target {

  /**
   * What one event changes of one SKU. The event's global index is not part of it: the ledger reads
   * it from the event store ({@link #globalIndexes}).
   */
  record Change(
      String skuId,
      String eventId,
      Instant occurredAt,
      String eventType,
      String reference,
      long total,
      long reserved,
      long sold) {}

  /**
   * What an event sets of a SKU's row besides its numbers, each part {@code null} when the event
   * leaves it as it is. Of two events' settings the later's parts win ({@link #then}).
   *
   * @param registers whether the event is the SKU's registration (the SKU becomes known)
   */
  record Settings(boolean registers, Limit limit, Window window, Pause pause) {

    static final Settings NONE = new Settings(false, null, null, null);

    /** A per-user limit, {@code null} for none. */
    record Limit(Integer perUserLimit) {}

    record Window(Instant opensAt, Instant closesAt, int prequeueSeconds) {}

    record Pause(boolean paused, String reason) {}

    static Settings registration(Integer perUserLimit) {
      return new Settings(true, new Limit(perUserLimit), null, null);
    }

    static Settings limit(Integer perUserLimit) {
      return new Settings(false, new Limit(perUserLimit), null, null);
    }

    static Settings window(Instant opensAt, Instant closesAt, int prequeueSeconds) {
      return new Settings(false, null, new Window(opensAt, closesAt, prequeueSeconds), null);
    }

    static Settings pause(String reason) {
      return new Settings(false, null, null, new Pause(true, reason));
    }

    static Settings resume() {
      return new Settings(false, null, null, new Pause(false, null));
    }

    /** These settings followed by {@code later}'s. */
    Settings then(Settings later) {
      return new Settings(
          registers || later.registers(),
          later.limit() != null ? later.limit() : limit,
          later.window() != null ? later.window() : window,
          later.pause() != null ? later.pause() : pause);
    }
  }

  private static final String PENDING = StockLevels.class.getName() + ".pending";

  /** Ledger entries per insert statement (nine parameters each). */
  private static final int MAX_ROWS_PER_INSERT = 500;

  /** Ledger entries and SKU rows per write of a replay's fold ({@link BulkRows}). */
  private static final int FOLD_ROWS_PER_WRITE = 10_000;

  private static final List<String> LEDGER_COLUMNS =
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

  private static final List<String> LEVEL_COLUMNS =
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

  /** Event identifiers per query of their global indexes. */
  private static final int MAX_IDS_PER_QUERY = 1000;

  /** The years a DATETIME(6) column is documented to hold, on MySQL and MariaDB: 1000 to 9999. */
  private static final Instant EARLIEST = Instant.parse("1000-01-01T00:00:00Z");

  private static final Instant BEYOND = Instant.parse("+10000-01-01T00:00:00Z");

  private static final String COLUMNS =
      "sku_id, total, reserved, sold, per_user_limit, opens_at, closes_at, prequeue_seconds,"
          + " paused, paused_reason, updated_at";

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

  private final Clock clock;

  private final JdbcTemplate jdbc;
  private final NamedParameterJdbcTemplate named;

  /** The tables written: the read model's, or a replay's copies of them. */
  private final String levelTable;

  private final String ledgerTable;
  private final String upsert;
  private final String ledgerInsert;

  @Autowired
  StockLevels(JdbcTemplate jdbc, Clock clock) {
    this(jdbc, clock, "");
  }

  private StockLevels(JdbcTemplate jdbc, Clock clock, String suffix) {
    this.jdbc = jdbc;
    this.clock = clock;
    this.named = new NamedParameterJdbcTemplate(jdbc);
    this.levelTable = "stock_level" + suffix;
    this.ledgerTable = "stock_ledger" + suffix;
    this.upsert = UPSERT.formatted(levelTable);
    this.ledgerInsert = LEDGER_INSERT.formatted(ledgerTable);
  }

  /**
   * The same writes into the tables named as this model's with {@code suffix} appended: a replay's
   * copies ({@link io.stockade.query.replay.ReadModelFold}). Its reads still read the model's own.
   */
  StockLevels into(String suffix) {
    return new StockLevels(jdbc, clock, suffix);
  }

  /**
   * Records a change in the ledger and adds it to the SKU's row, unless it was applied before.
   * Inside a unit of work (the projection's batch) the changes wait until just before the batch
   * commits, then are written together ({@link #write}); outside one they are written at once.
   */
  @Override
  public void apply(Change change, Settings settings) {
    accept(new Applied(change, settings));
  }

  /** A change and what its event sets of the SKU's sale. */
  private record Applied(Change change, Settings settings) {}

  private void accept(Applied applied) {
    if (CurrentUnitOfWork.isStarted()) {
      pending().add(applied);
      return;
    }
    write(List.of(applied));
  }

  private List<Applied> pending() {
    UnitOfWork<?> unitOfWork = CurrentUnitOfWork.get().root();
    return unitOfWork.getOrComputeResource(
        PENDING,
        key -> {
          List<Applied> changes = new ArrayList<>();
          unitOfWork.onPrepareCommit(u -> write(changes));
          return changes;
        });
  }

  /**
   * Writes a batch of changes: their ledger entries in multi-row inserts, then, per SKU, the sum of
   * the changes that were new, one update per SKU, in SKU order (segments that lock the same rows
   * lock them in the same order: no deadlocks). A ledger entry that exists already (the event was
   * applied before) makes its insert fail as a whole, without touching the transaction; that
   * insert's entries are then tried one by one and only the new ones count.
   */
  private void write(List<Applied> batch) {
    if (batch.isEmpty()) {
      return;
    }
    Map<String, Long> globalIndexes = globalIndexes(batch);
    SortedMap<String, Pending> sums = new TreeMap<>();
    for (int from = 0; from < batch.size(); from += MAX_ROWS_PER_INSERT) {
      List<Applied> chunk = batch.subList(from, Math.min(batch.size(), from + MAX_ROWS_PER_INSERT));
      List<Applied> fresh = ledger(chunk, globalIndexes);
      for (Applied applied : fresh) {
        sums.merge(applied.change().skuId(), Pending.of(applied), Pending::plus);
      }
    }
    List<Object[]> upserts = new ArrayList<>(sums.size());
    sums.forEach((skuId, sum) -> upserts.add(sum.upsert(skuId)));
    if (!upserts.isEmpty()) {
      // One statement for registrations and other changes alike, so that the rows are locked in
      // SKU order.
      jdbc.batchUpdate(upsert, upserts);
    }
  }

  /** Changes of one SKU's row not written yet: their sums, and what they set of its sale. */
  private record Pending(
      long total,
      long reserved,
      long sold,
      Instant latest,
      Settings settings,
      Instant registeredAt,
      long activity) {

    static Pending of(Applied applied) {
      Change change = applied.change();
      Settings settings = applied.settings();
      return new Pending(
          change.total(),
          change.reserved(),
          change.sold(),
          change.occurredAt(),
          settings,
          settings.registers() ? change.occurredAt() : null,
          1);
    }

    Pending plus(Pending other) {
      return new Pending(
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

  private static final String LEDGER_INSERT =
      "insert into %s (" + String.join(", ", LEDGER_COLUMNS) + ") values ";

  private static final String LEDGER_ROW =
      "(" + String.join(", ", Collections.nCopies(LEDGER_COLUMNS.size(), "?")) + ")";

  /**
   * The global index of each event of a batch, from the event store's table, or -1 for an event it
   * does not hold. Not the token's position: the token of an event names the highest index the
   * processor has seen, which for an event committed after later ones (it fills a gap below the
   * head) is another event's. A plain read, which locks nothing: the events are committed, the
   * processor has read them.
   */
  private Map<String, Long> globalIndexes(List<Applied> batch) {
    List<String> eventIds =
        batch.stream().map(applied -> applied.change().eventId()).distinct().toList();
    Map<String, Long> globalIndexes = new HashMap<>();
    for (int from = 0; from < eventIds.size(); from += MAX_IDS_PER_QUERY) {
      named.query(
          "select event_identifier, global_index from domain_event_entry"
              + " where event_identifier in (:ids)",
          Map.of(
              "ids", eventIds.subList(from, Math.min(eventIds.size(), from + MAX_IDS_PER_QUERY))),
          (ResultSet rs) -> {
            globalIndexes.put(rs.getString(1), rs.getLong(2));
          });
    }
    return globalIndexes;
  }

  /**
   * Inserts the ledger entries of a chunk; returns those that were new. One statement for the
   * chunk; when it fails on an entry that exists, the entries are inserted one at a time.
   */
  private List<Applied> ledger(List<Applied> chunk, Map<String, Long> globalIndexes) {
    try {
      insertLedger(chunk, globalIndexes);
      return chunk;
    } catch (DuplicateKeyException someAppliedBefore) {
      if (chunk.size() == 1) {
        return List.of();
      }
    }
    List<Applied> fresh = new ArrayList<>();
    for (Applied applied : chunk) {
      fresh.addAll(ledger(List.of(applied), globalIndexes));
    }
    return fresh;
  }

  /** The ledger entries of a chunk, in one statement. */
  private void insertLedger(List<Applied> chunk, Map<String, Long> globalIndexes) {
    List<Object> arguments = new ArrayList<>(chunk.size() * LEDGER_COLUMNS.size());
    for (Applied applied : chunk) {
      arguments.addAll(Arrays.asList(ledgerRow(applied.change(), globalIndexes)));
    }
    jdbc.update(
        MultiRowInsert.sql(ledgerInsert, LEDGER_ROW, chunk.size()), BulkValues.of(arguments));
  }

  /** A ledger entry's values, in the order of {@link #LEDGER_COLUMNS}. */
  private static Object[] ledgerRow(Change change, Map<String, Long> globalIndexes) {
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
   * A fold into emptied tables (a replay's, see {@link StockReplayFold}): the same rows as {@link
   * #apply} and {@link #register} would write change by change, written in bulk ({@link BulkRows}).
   * Ledger entries go out as they come, {@value #FOLD_ROWS_PER_WRITE} at a time; the sums are held
   * per SKU and written by {@link #finish}. Memory: a chunk of entries and one sum per SKU.
   */
  final class Fold {

    private final Executor writes;
    private final BulkRows ledger =
        new BulkRows(jdbc, ledgerTable, LEDGER_COLUMNS, BulkRows.Duplicates.FAIL);
    private final BulkRows levels =
        new BulkRows(jdbc, levelTable, LEVEL_COLUMNS, BulkRows.Duplicates.FAIL);
    private final List<Applied> entries = new ArrayList<>(FOLD_ROWS_PER_WRITE);
    private final Map<String, Long> globalIndexes = new HashMap<>();
    private final SortedMap<String, Pending> sums = new TreeMap<>();

    private Fold(Executor writes) {
      this.writes = writes;
    }

    /**
     * Applies a change of the event at this global index; a second change of the same SKU by the
     * same event counts once.
     */
    void apply(Change change, Settings settings, long globalIndex) {
      add(new Applied(change, settings), globalIndex);
    }

    private void add(Applied applied, long globalIndex) {
      Change change = applied.change();
      // A ledger entry is unique per (SKU, event): the event's lines of a SKU after its first are
      // the entries the change-by-change insert finds existing and skips.
      for (int i = entries.size() - 1; i >= 0; i--) {
        Change earlier = entries.get(i).change();
        if (!earlier.eventId().equals(change.eventId())) {
          break;
        }
        if (earlier.skuId().equals(change.skuId())) {
          return;
        }
      }
      if (entries.size() >= FOLD_ROWS_PER_WRITE && !sameEvent(change)) {
        flush();
      }
      entries.add(applied);
      globalIndexes.put(change.eventId(), globalIndex);
      sums.merge(change.skuId(), Pending.of(applied), Pending::plus);
    }

    /** Whether the chunk's last entry is of the same event (a chunk never splits an event). */
    private boolean sameEvent(Change change) {
      return entries.get(entries.size() - 1).change().eventId().equals(change.eventId());
    }

    private void flush() {
      List<Object[]> rows = new ArrayList<>(entries.size());
      for (Applied applied : entries) {
        rows.add(ledgerRow(applied.change(), globalIndexes));
      }
      writes.execute(() -> ledger.write(rows));
      entries.clear();
      globalIndexes.clear();
    }

    /** Writes the last entries and every SKU's row. */
    void finish() {
      if (!entries.isEmpty()) {
        flush();
      }
      List<Object[]> rows = new ArrayList<>();
      for (Map.Entry<String, Pending> entry : sums.entrySet()) {
        rows.add(entry.getValue().row(entry.getKey()));
        if (rows.size() == FOLD_ROWS_PER_WRITE) {
          List<Object[]> chunk = List.copyOf(rows);
          writes.execute(() -> levels.write(chunk));
          rows.clear();
        }
      }
      writes.execute(() -> levels.write(rows));
      sums.clear();
    }
  }

  /** A fold whose statements go to {@code writes}, in order. */
  Fold fold(Executor writes) {
    return new Fold(writes);
  }

  Optional<StockLevel> find(String skuId) {
    return jdbc
        .query(
            "select "
                + COLUMNS
                + " from stock_level where sku_id = ? and registered_at is not null",
            this::level,
            skuId)
        .stream()
        .findFirst();
  }

  List<StockLevel> findAll(Collection<String> skuIds) {
    if (skuIds.isEmpty()) {
      return List.of();
    }
    return named.query(
        "select "
            + COLUMNS
            + " from stock_level where sku_id in (:ids) and registered_at is not null"
            + " order by sku_id",
        Map.of("ids", skuIds),
        this::level);
  }

  /** One page of every known SKU, the busiest (most events) first, then by SKU id. */
  List<StockLevel> busiest(int page, int size) {
    return jdbc.query(
        "select "
            + COLUMNS
            + " from stock_level where registered_at is not null"
            + " order by activity desc, sku_id limit ? offset ?",
        this::level,
        size,
        (long) page * size);
  }

  /** How many SKUs are known. */
  long known() {
    return jdbc.queryForObject(
        "select count(*) from stock_level where registered_at is not null", Long.class);
  }

  /** A SKU's numbers as of an instant, summed from its ledger. */
  record AsOf(long total, long reserved, long sold, long entries) {}

  /** One entry of a SKU's ledger. */
  record Entry(
      String type,
      Instant timestamp,
      long globalIndex,
      String reference,
      long total,
      long reserved,
      long sold) {}

  /** Whether the SKU's registration is in the ledger (at any time). */
  boolean registered(String skuId) {
    return !jdbc.queryForList(
            "select 1 from stock_ledger where sku_id = ? and event_type = 'SkuRegistered' limit 1",
            Integer.class,
            skuId)
        .isEmpty();
  }

  AsOf asOf(String skuId, Instant at) {
    return jdbc.queryForObject(
        "select coalesce(sum(total_change), 0), coalesce(sum(reserved_change), 0),"
            + " coalesce(sum(sold_change), 0), count(*)"
            + " from stock_ledger where sku_id = ? and occurred_at <= ?",
        (rs, i) -> new AsOf(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)),
        skuId,
        utc(at));
  }

  /** The ledger up to an instant, oldest first (event time, then global index). */
  List<Entry> ledger(String skuId, Instant at, int page, int size) {
    return jdbc.query(
        "select event_type, occurred_at, global_index, reference, total_change, reserved_change,"
            + " sold_change from stock_ledger where sku_id = ? and occurred_at <= ?"
            + " order by occurred_at, global_index, event_id limit ? offset ?",
        (rs, i) ->
            new Entry(
                rs.getString(1),
                instant(rs, 2),
                rs.getLong(3),
                rs.getString(4),
                rs.getLong(5),
                rs.getLong(6),
                rs.getLong(7)),
        skuId,
        utc(at),
        size,
        (long) page * size);
  }

  void clear() {
    jdbc.update("delete from stock_ledger");
    jdbc.update("delete from stock_level");
  }

  /** A SKU's row, its sale's state by this service's clock. */
  private StockLevel level(ResultSet rs, int row) throws SQLException {
    long total = rs.getLong("total");
    long reserved = rs.getLong("reserved");
    long sold = rs.getLong("sold");
    Integer limit = rs.getObject("per_user_limit", Integer.class);
    SaleStatus sale =
        SaleStatus.at(
            clock.instant(),
            nullableInstant(rs, "opens_at"),
            nullableInstant(rs, "closes_at"),
            rs.getInt("prequeue_seconds"),
            rs.getBoolean("paused"),
            rs.getString("paused_reason"));
    return new StockLevel(
        rs.getString("sku_id"),
        total,
        total - reserved - sold,
        reserved,
        sold,
        limit,
        nullableInstant(rs, "updated_at"),
        sale);
  }

  private static Instant nullableInstant(ResultSet rs, String column) throws SQLException {
    LocalDateTime value = rs.getObject(column, LocalDateTime.class);
    return value == null ? null : value.toInstant(ZoneOffset.UTC);
  }

  /**
   * Whether the ledger's times can be compared with an instant: outside the years 1000 to 9999 the
   * database cannot hold it, and a comparison with it matches nothing (year 10000) or is not
   * guaranteed (before the year 1000).
   */
  static boolean holds(Instant instant) {
    return !instant.isBefore(EARLIEST) && instant.isBefore(BEYOND);
  }

  /**
   * An instant as a column value: UTC, to the microsecond (what DATETIME(6) keeps), passed as a
   * LocalDateTime so that no driver converts it to or from a session time zone (nor builds a date
   * format for it, as some do for java.sql.Timestamp).
   */
  private static LocalDateTime utc(Instant instant) {
    return BulkValues.utc(instant);
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    return rs.getObject(column, LocalDateTime.class).toInstant(ZoneOffset.UTC);
  }
}
