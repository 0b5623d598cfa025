package io.stockade.query.reconciliation;

import io.stockade.api.StreamFold;
import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.DrawDecided;
import io.stockade.api.sku.PurchaseLimitChanged;
import io.stockade.api.sku.SalePaused;
import io.stockade.api.sku.SaleResumed;
import io.stockade.api.sku.SaleScheduled;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockAdjusted;
import io.stockade.api.sku.StockReplenished;
import io.stockade.platform.eventstore.EventTableFold;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
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
 * first check reads every event once, straight from the event table ({@link EventTableFold}), later
 * checks only the events stored since, through Axon's storage engine, from the gap-aware tracking
 * token the first fold ended at (so an event that commits late at a lower position is still read,
 * once). Kept in memory; a restart folds from the first event again.
 *
 * <p>What the later checks read is also remembered as changes, until {@link #takeChanges()}: the
 * reservations and the SKUs their events name, which the routine checks of the gate read again.
 */
@Component
class EventStoreFold {

  /** Every SKU's numbers up to {@link #position}. */
  record Snapshot(Map<String, Numbers> skus, TrackingToken position) {

    /** The global index of the last event read; -1 when the store is empty. */
    long head() {
      return position == null ? -1 : position.position().orElse(-1);
    }

    /**
     * Whether the event at this global index is part of the numbers: at or below the position and
     * not one of its gaps. (Not {@code position.covers(token of the index)}: that also asks the
     * other token to share every gap below it, which a token of one index has none of.)
     */
    boolean covers(long globalIndex) {
      if (position instanceof GapAwareTrackingToken gapAware) {
        return globalIndex <= gapAware.getIndex() && !gapAware.getGaps().contains(globalIndex);
      }
      return position != null
          && position.covers(
              GapAwareTrackingToken.newInstance(globalIndex, Collections.emptySortedSet()));
    }
  }

  /**
   * The reservations whose events were read since the changes were last taken, and the SKUs named
   * by registrations and replenishments among them.
   */
  record Changes(Set<String> reservationIds, Set<String> skuIds) {}

  private final EventStorageEngine storage;
  private final EventTableFold table;
  private final TransactionTemplate readOnly;

  /** Per SKU: total, reserved, sold. */
  private final Map<String, long[]> skus = new HashMap<>();

  private TrackingToken position;

  private Set<String> changedReservations = new HashSet<>();
  private Set<String> changedSkus = new HashSet<>();

  /** The first fold's: it reads everything, so it remembers no changes. */
  private final Sums sums = new Sums(false);

  private final Sums changes = new Sums(true);

  EventStoreFold(
      EventStorageEngine storage, EventTableFold table, PlatformTransactionManager transactions) {
    this.storage = storage;
    this.table = table;
    this.readOnly = new TransactionTemplate(transactions);
    this.readOnly.setReadOnly(true);
  }

  /** Reads the events stored since the last call and answers the numbers up to the newest. */
  synchronized Snapshot catchUp() {
    if (position == null) {
      position =
          table.foldPayloads(StreamFold.EVENTS, event -> StreamFold.apply(event.payload(), sums));
    }
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

  /** Every SKU the events folded so far name. */
  synchronized Set<String> skuIds() {
    return Set.copyOf(skus.keySet());
  }

  /** The changes read since the last call (none from the first fold: it reads everything). */
  synchronized Changes takeChanges() {
    Changes changes = new Changes(changedReservations, changedSkus);
    changedReservations = new HashSet<>();
    changedSkus = new HashSet<>();
    return changes;
  }

  private void apply(TrackedEventMessage<?> event) {
    StreamFold.apply(event.getPayload(), changes);
    position = event.trackingToken();
  }

  /** Adds each event's stock to the numbers; a later check's also remembers what it changed. */
  private final class Sums implements StreamFold {

    private final boolean remembersChanges;

    Sums(boolean remembersChanges) {
      this.remembersChanges = remembersChanges;
    }

    @Override
    public void on(SkuRegistered event) {
      add(event.skuId(), event.initialStock(), 0, 0);
      changedSku(event.skuId());
    }

    @Override
    public void on(StockReplenished event) {
      add(event.skuId(), event.quantity(), 0, 0);
      changedSku(event.skuId());
    }

    @Override
    public void on(StockAdjusted event) {
      add(event.skuId(), event.quantity(), 0, 0);
      changedSku(event.skuId());
    }

    @Override
    public void on(SaleScheduled event) {
      // The sale's window changes no stock.
    }

    @Override
    public void on(SalePaused event) {
      // A pause changes no stock.
    }

    @Override
    public void on(SaleResumed event) {
      // A resume changes no stock.
    }

    @Override
    public void on(PurchaseLimitChanged event) {
      // A limit changes no stock.
    }

    @Override
    public void on(DrawDecided event) {
      // A draw changes no stock: its admissions are StockReserved events of their own.
    }

    @Override
    public void on(StockReserved event) {
      for (ReservationLine line : event.lines()) {
        add(line.skuId(), 0, line.quantity(), 0);
      }
      changedReservation(event.reservationId());
    }

    @Override
    public void on(StockConfirmed event) {
      for (ReservationLine line : event.lines()) {
        add(line.skuId(), 0, -line.quantity(), line.quantity());
      }
      changedReservation(event.reservationId());
    }

    @Override
    public void on(StockReleased event) {
      for (ReservationLine line : event.lines()) {
        add(line.skuId(), 0, -line.quantity(), 0);
      }
      changedReservation(event.reservationId());
    }

    @Override
    public void on(ReservationExtended event) {
      // A longer hold of the same units: no numbers change; the gate's intent does.
      changedReservation(event.reservationId());
    }

    @Override
    public void on(ReservationAbandoned event) {
      // An admission never recorded: it changed no stock in the record.
      changedReservation(event.reservationId());
    }

    private void changedSku(String skuId) {
      if (remembersChanges) {
        changedSkus.add(skuId);
      }
    }

    private void changedReservation(String reservationId) {
      if (remembersChanges) {
        changedReservations.add(reservationId);
      }
    }
  }

  private void add(String skuId, long total, long reserved, long sold) {
    long[] numbers = skus.computeIfAbsent(skuId, id -> new long[3]);
    numbers[0] += total;
    numbers[1] += reserved;
    numbers[2] += sold;
  }
}
