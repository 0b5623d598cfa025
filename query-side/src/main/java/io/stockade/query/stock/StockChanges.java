package io.stockade.query.stock;

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
import java.time.Instant;

/**
 * What one event changes in the stock read model, one {@link Change} per SKU it names: the one fold
 * of the stock events, which both {@link StockProjection} (event by event) and {@link
 * StockReplayFold} (in bulk) apply, each to its own {@link Target}.
 */
final class StockChanges implements StreamFold {

  /**
   * What one event changes of one SKU. The event's global index is not part of it: the ledger reads
   * it from the event store ({@link StockRows}).
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

  /** Where the changes of an event go. */
  interface Target {

    /**
     * A change of the SKU's numbers and what the event sets of its sale ({@link Settings#NONE} for
     * nothing).
     */
    void apply(Change change, Settings settings);
  }

  private final String eventId;
  private final Instant at;
  private final String eventType;
  private final Target target;

  private StockChanges(String eventId, Instant at, String eventType, Target target) {
    this.eventId = eventId;
    this.at = at;
    this.eventType = eventType;
    this.target = target;
  }

  /**
   * Hands {@code target} the changes of the event with this payload, identifier and timestamp.
   *
   * @throws IllegalArgumentException if the payload is no event of a SKU's or reservation's stream
   */
  static void apply(Object payload, String eventId, Instant at, Target target) {
    StockChanges changes =
        new StockChanges(eventId, at, payload.getClass().getSimpleName(), target);
    if (!StreamFold.apply(payload, changes)) {
      throw new IllegalArgumentException("Not a stock event: " + payload);
    }
  }

  @Override
  public void on(SkuRegistered event) {
    target.apply(
        change(event.skuId(), event.skuId(), event.initialStock(), 0, 0),
        Settings.registration(event.perUserLimit()));
  }

  @Override
  public void on(StockReplenished event) {
    target.apply(
        change(event.skuId(), event.replenishmentId(), event.quantity(), 0, 0), Settings.NONE);
  }

  /** An adjustment changes the total, and with it the available units, by its quantity. */
  @Override
  public void on(StockAdjusted event) {
    target.apply(
        change(event.skuId(), event.adjustmentId(), event.quantity(), 0, 0), Settings.NONE);
  }

  /** A sale's window, a pause, a resume and a limit change no stock: a ledger entry of zeros. */
  @Override
  public void on(SaleScheduled event) {
    target.apply(
        change(event.skuId(), event.skuId(), 0, 0, 0),
        Settings.window(event.opensAt(), event.closesAt(), event.prequeueSeconds()));
  }

  @Override
  public void on(SalePaused event) {
    target.apply(change(event.skuId(), event.skuId(), 0, 0, 0), Settings.pause(event.reason()));
  }

  @Override
  public void on(SaleResumed event) {
    target.apply(change(event.skuId(), event.skuId(), 0, 0, 0), Settings.resume());
  }

  @Override
  public void on(PurchaseLimitChanged event) {
    target.apply(
        change(event.skuId(), event.skuId(), 0, 0, 0), Settings.limit(event.perUserLimit()));
  }

  /** A draw decided changes no stock either: its own numbers are the reservations it decided. */
  @Override
  public void on(DrawDecided event) {
    target.apply(change(event.skuId(), event.skuId(), 0, 0, 0), Settings.NONE);
  }

  @Override
  public void on(StockReserved event) {
    for (ReservationLine line : event.lines()) {
      target.apply(
          change(line.skuId(), event.reservationId(), 0, line.quantity(), 0), Settings.NONE);
    }
  }

  @Override
  public void on(StockConfirmed event) {
    for (ReservationLine line : event.lines()) {
      target.apply(
          change(line.skuId(), event.reservationId(), 0, -line.quantity(), line.quantity()),
          Settings.NONE);
    }
  }

  @Override
  public void on(StockReleased event) {
    for (ReservationLine line : event.lines()) {
      target.apply(
          change(line.skuId(), event.reservationId(), 0, -line.quantity(), 0), Settings.NONE);
    }
  }

  @Override
  public void on(ReservationExtended event) {
    // A longer hold of the same units: no stock changes.
  }

  @Override
  public void on(ReservationAbandoned event) {
    // An admission never recorded: it changed no stock in the record.
  }

  private Change change(String skuId, String reference, long total, long reserved, long sold) {
    return new Change(skuId, eventId, at, eventType, reference, total, reserved, sold);
  }
}
