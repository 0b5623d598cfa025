package io.stockade.query.stock;

import io.stockade.query.replay.BulkRows;
import io.stockade.query.stock.StockChanges.Change;
import io.stockade.query.stock.StockChanges.Settings;
import io.stockade.query.stock.StockTables.Applied;
import io.stockade.query.stock.StockTables.Sum;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Executor;

/**
 * A replay's writes: a fold into emptied tables (a replay's, see {@link StockReplayFold}), the same
 * rows as {@link StockRows} would write change by change, written in bulk ({@link BulkRows}).
 * Ledger entries go out as they come, {@value #FOLD_ROWS_PER_WRITE} at a time; the sums are held
 * per SKU and written by {@link #finish}. Memory: a chunk of entries and one sum per SKU.
 */
final class StockFold {

  /** Ledger entries and SKU rows per write of a replay's fold ({@link BulkRows}). */
  private static final int FOLD_ROWS_PER_WRITE = 10_000;

  private final Executor writes;
  private final BulkRows ledger;
  private final BulkRows levels;
  private final List<Applied> entries = new ArrayList<>(FOLD_ROWS_PER_WRITE);
  private final Map<String, Long> globalIndexes = new HashMap<>();
  private final SortedMap<String, Sum> sums = new TreeMap<>();

  /** A fold into {@code tables} whose statements go to {@code writes}, in order. */
  StockFold(StockTables tables, Executor writes) {
    this.writes = writes;
    this.ledger =
        new BulkRows(
            tables.jdbc(),
            tables.ledgerTable(),
            StockTables.LEDGER_COLUMNS,
            BulkRows.Duplicates.FAIL);
    this.levels =
        new BulkRows(
            tables.jdbc(),
            tables.levelTable(),
            StockTables.LEVEL_COLUMNS,
            BulkRows.Duplicates.FAIL);
  }

  /**
   * Applies a change of the event at this global index; a second change of the same SKU by the same
   * event counts once.
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
    sums.merge(change.skuId(), Sum.of(applied), Sum::plus);
  }

  /** Whether the chunk's last entry is of the same event (a chunk never splits an event). */
  private boolean sameEvent(Change change) {
    return entries.get(entries.size() - 1).change().eventId().equals(change.eventId());
  }

  private void flush() {
    List<Object[]> rows = new ArrayList<>(entries.size());
    for (Applied applied : entries) {
      rows.add(StockTables.ledgerRow(applied.change(), globalIndexes));
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
    for (Map.Entry<String, Sum> entry : sums.entrySet()) {
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
