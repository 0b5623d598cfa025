package io.stockade.query.stock;

import static io.stockade.query.stock.StockTables.LEDGER_COLUMNS;

import io.stockade.platform.jdbc.MultiRowInsert;
import io.stockade.query.replay.BulkValues;
import io.stockade.query.stock.StockChanges.Change;
import io.stockade.query.stock.StockChanges.Settings;
import io.stockade.query.stock.StockTables.Applied;
import io.stockade.query.stock.StockTables.Sum;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The live writes of the stock read model's tables, {@code stock_level} and {@code stock_ledger}:
 * the projection's changes, event by event, each recorded once in the SKU's ledger and added to its
 * row only then. A replay's bulk writes are {@link StockFold}'s; the reads {@link StockLevels}' and
 * {@link StockLedger}'s.
 */
@Repository
class StockRows implements StockChanges.Target {

  private static final String PENDING = StockRows.class.getName() + ".pending";

  /** Ledger entries per insert statement (nine parameters each). */
  private static final int MAX_ROWS_PER_INSERT = 500;

  /** Event identifiers per query of their global indexes. */
  private static final int MAX_IDS_PER_QUERY = 1000;

  private static final String LEDGER_INSERT =
      "insert into %s (" + String.join(", ", LEDGER_COLUMNS) + ") values ";

  private static final String LEDGER_ROW =
      "(" + String.join(", ", Collections.nCopies(LEDGER_COLUMNS.size(), "?")) + ")";

  /** The tables written: the read model's, or a replay's copies of them ({@link #into}). */
  private final StockTables tables;

  private final JdbcTemplate jdbc;
  private final NamedParameterJdbcTemplate named;
  private final String upsert;
  private final String ledgerInsert;

  @Autowired
  StockRows(JdbcTemplate jdbc) {
    this(new StockTables(jdbc));
  }

  private StockRows(StockTables tables) {
    this.tables = tables;
    this.jdbc = tables.jdbc();
    this.named = new NamedParameterJdbcTemplate(jdbc);
    this.upsert = tables.upsert();
    this.ledgerInsert = LEDGER_INSERT.formatted(tables.ledgerTable());
  }

  /**
   * The same writes into the tables named as this model's with {@code suffix} appended: a replay's
   * copies, which its follower writes event by event ({@link
   * io.stockade.query.replay.ReadModelFold#follow}).
   */
  StockRows into(String suffix) {
    return new StockRows(tables.into(suffix));
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
    SortedMap<String, Sum> sums = new TreeMap<>();
    for (int from = 0; from < batch.size(); from += MAX_ROWS_PER_INSERT) {
      List<Applied> chunk = batch.subList(from, Math.min(batch.size(), from + MAX_ROWS_PER_INSERT));
      List<Applied> fresh = ledger(chunk, globalIndexes);
      for (Applied applied : fresh) {
        sums.merge(applied.change().skuId(), Sum.of(applied), Sum::plus);
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
      arguments.addAll(Arrays.asList(StockTables.ledgerRow(applied.change(), globalIndexes)));
    }
    jdbc.update(
        MultiRowInsert.sql(ledgerInsert, LEDGER_ROW, chunk.size()), BulkValues.of(arguments));
  }

  /** Empties the read model: a replay starts from nothing. */
  void clear() {
    jdbc.update("delete from stock_ledger");
    jdbc.update("delete from stock_level");
  }
}
