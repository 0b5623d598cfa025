package io.stockade.query.reconciliation;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockReplenished;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Every SKU's numbers folded from the event store itself, independently of the read model: the
 * first check reads every event once, later checks only the events stored since (from a gap-aware
 * tracking token, so an event that commits late at a lower position is still read). Kept in memory;
 * a restart folds from the first event again.
 */
@Component
class EventStoreFold {

  /** Every SKU's numbers up to {@link #position}. */
  record Snapshot(Map<String, Numbers> skus, TrackingToken position) {

    /** The global index of the last event read; -1 when the store is empty. */
    long head() {
      return position == null ? -1 : position.position().orElse(-1);
    }

    /** Whether the event at this global index is part of the numbers. */
    boolean covers(long globalIndex) {
      return position != null
          && position.covers(
              GapAwareTrackingToken.newInstance(globalIndex, Collections.emptySortedSet()));
    }
  }

  private final EventStorageEngine storage;
  private final TransactionTemplate readOnly;

  /** Per SKU: total, reserved, sold. */
  private final Map<String, long[]> skus = new HashMap<>();

  private TrackingToken position;

  EventStoreFold(EventStorageEngine storage, PlatformTransactionManager transactions) {
    this.storage = storage;
    this.readOnly = new TransactionTemplate(transactions);
    this.readOnly.setReadOnly(true);
  }

  /** Reads the events stored since the last call and answers the numbers up to the newest. */
  synchronized Snapshot catchUp() {
    readOnly.executeWithoutResult(
        status -> {
          try (Stream<? extends TrackedEventMessage<?>> events =
              storage.readEvents(position, false)) {
            events.forEach(this::apply);
          }
        });
    Map<String, Numbers> numbers = new HashMap<>();
    skus.forEach((sku, n) -> numbers.put(sku, Numbers.of(n[0], n[1], n[2])));
    return new Snapshot(numbers, position);
  }

  private void apply(TrackedEventMessage<?> event) {
    Class<?> type = event.getPayloadType();
    if (SkuRegistered.class.equals(type)) {
      SkuRegistered registered = (SkuRegistered) event.getPayload();
      add(registered.skuId(), registered.initialStock(), 0, 0);
    } else if (StockReplenished.class.equals(type)) {
      StockReplenished replenished = (StockReplenished) event.getPayload();
      add(replenished.skuId(), replenished.quantity(), 0, 0);
    } else if (StockReserved.class.equals(type)) {
      for (ReservationLine line : ((StockReserved) event.getPayload()).lines()) {
        add(line.skuId(), 0, line.quantity(), 0);
      }
    } else if (StockConfirmed.class.equals(type)) {
      List<ReservationLine> lines = ((StockConfirmed) event.getPayload()).lines();
      for (ReservationLine line : lines) {
        add(line.skuId(), 0, -line.quantity(), line.quantity());
      }
    } else if (StockReleased.class.equals(type)) {
      for (ReservationLine line : ((StockReleased) event.getPayload()).lines()) {
        add(line.skuId(), 0, -line.quantity(), 0);
      }
    }
    // ReservationAbandoned: an admission never recorded; it changed no stock in the record.
    position = event.trackingToken();
  }

  private void add(String skuId, long total, long reserved, long sold) {
    long[] numbers = skus.computeIfAbsent(skuId, id -> new long[3]);
    numbers[0] += total;
    numbers[1] += reserved;
    numbers[2] += sold;
  }
}
