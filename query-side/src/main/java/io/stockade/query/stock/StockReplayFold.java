package io.stockade.query.stock;

import io.stockade.api.StreamFold;
import io.stockade.platform.eventstore.EventTableFold.StoredEvent;
import io.stockade.query.replay.ReadModelFold;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The stock read model rebuilt in bulk by a replay: the changes of each event that {@link
 * StockProjection} applies one by one ({@link StockChanges}), folded into {@link StockFold}. A
 * ledger entry's global index is the event's own.
 */
@Component
class StockReplayFold implements ReadModelFold {

  private final StockRows stockRows;
  private final StockTables tables;

  StockReplayFold(StockRows stockRows, JdbcTemplate jdbc) {
    this.stockRows = stockRows;
    this.tables = new StockTables(jdbc);
  }

  @Override
  public String processor() {
    return StockProjection.PROCESSING_GROUP;
  }

  @Override
  public List<String> tables() {
    return List.of("stock_level", "stock_ledger");
  }

  @Override
  public Map<String, Class<?>> eventTypes() {
    return StreamFold.EVENTS;
  }

  @Override
  public Writer start(Executor writes, String suffix) {
    StockFold fold = new StockFold(tables.into(suffix), writes);
    return new Writer() {

      /** The global index of the event whose changes are being applied. */
      private long globalIndex;

      private final StockChanges.Target target =
          new StockChanges.Target() {
            @Override
            public void apply(StockChanges.Change change, StockChanges.Settings settings) {
              fold.apply(change, settings, globalIndex);
            }
          };

      @Override
      public void accept(StoredEvent event) {
        globalIndex = event.globalIndex();
        StockChanges.apply(event.payload(), event.eventIdentifier(), event.instant(), target);
      }

      @Override
      public void finish() {
        fold.finish();
      }
    };
  }

  @Override
  public Writer follow(String suffix) {
    StockRows rows = stockRows.into(suffix);
    return new Writer() {
      @Override
      public void accept(StoredEvent event) {
        StockChanges.apply(event.payload(), event.eventIdentifier(), event.instant(), rows);
      }

      @Override
      public void finish() {}
    };
  }
}
