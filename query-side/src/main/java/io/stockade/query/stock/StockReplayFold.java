package io.stockade.query.stock;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockReplenished;
import io.stockade.platform.eventstore.EventTableFold.StoredEvent;
import io.stockade.query.replay.ReadModelFold;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.springframework.stereotype.Component;

/**
 * The stock read model rebuilt in bulk by a replay: the changes {@link StockProjection} makes,
 * event by event, folded into {@link StockLevels.Fold}. A ledger entry's global index is the
 * event's own.
 */
@Component
class StockReplayFold implements ReadModelFold {

  private static final Map<String, Class<?>> TYPES =
      Stream.of(
              SkuRegistered.class,
              StockReplenished.class,
              StockReserved.class,
              StockConfirmed.class,
              StockReleased.class)
          .collect(Collectors.toMap(Class::getName, type -> type));

  private final StockLevels stockLevels;

  StockReplayFold(StockLevels stockLevels) {
    this.stockLevels = stockLevels;
  }

  @Override
  public String processor() {
    return StockProjection.PROCESSING_GROUP;
  }

  @Override
  public Map<String, Class<?>> eventTypes() {
    return TYPES;
  }

  @Override
  public Writer start(Executor writes) {
    StockLevels.Fold fold = stockLevels.fold(writes);
    return new Writer() {
      @Override
      public void accept(StoredEvent event) {
        StockReplayFold.apply(fold, event);
      }

      @Override
      public void finish() {
        fold.finish();
      }
    };
  }

  private static void apply(StockLevels.Fold fold, StoredEvent event) {
    Instant at = event.instant();
    Object payload = event.payload();
    if (payload instanceof SkuRegistered registered) {
      fold.register(
          change(
              event, at, registered.skuId(), registered.skuId(), registered.initialStock(), 0, 0),
          event.globalIndex(),
          registered.perUserLimit());
    } else if (payload instanceof StockReplenished replenished) {
      fold.apply(
          change(
              event,
              at,
              replenished.skuId(),
              replenished.replenishmentId(),
              replenished.quantity(),
              0,
              0),
          event.globalIndex());
    } else if (payload instanceof StockReserved reserved) {
      for (ReservationLine line : reserved.lines()) {
        fold.apply(
            change(event, at, line.skuId(), reserved.reservationId(), 0, line.quantity(), 0),
            event.globalIndex());
      }
    } else if (payload instanceof StockConfirmed confirmed) {
      for (ReservationLine line : confirmed.lines()) {
        fold.apply(
            change(
                event,
                at,
                line.skuId(),
                confirmed.reservationId(),
                0,
                -line.quantity(),
                line.quantity()),
            event.globalIndex());
      }
    } else if (payload instanceof StockReleased released) {
      for (ReservationLine line : released.lines()) {
        fold.apply(
            change(event, at, line.skuId(), released.reservationId(), 0, -line.quantity(), 0),
            event.globalIndex());
      }
    } else {
      throw new IllegalArgumentException("Not a stock event: " + payload);
    }
  }

  private static StockLevels.Change change(
      StoredEvent event,
      Instant at,
      String skuId,
      String reference,
      long total,
      long reserved,
      long sold) {
    return new StockLevels.Change(
        skuId,
        event.eventIdentifier(),
        at,
        event.payload().getClass().getSimpleName(),
        reference,
        total,
        reserved,
        sold);
  }
}
