package io.stockade.api.sku;

/** The events of one SKU's stream. */
public sealed interface SkuEvent
    permits SkuRegistered,
        StockReplenished,
        SaleScheduled,
        SalePaused,
        SaleResumed,
        StockAdjusted,
        PurchaseLimitChanged,
        DrawDecided {

  /** What begins the aggregate identifier of every SKU's stream in the event store. */
  String STREAM_PREFIX = "sku:";

  /**
   * The identifier of a SKU's stream in the event store: its own namespace, so that no SKU id can
   * collide with a reservation id (see {@code ReservationEvent#streamId}). The id itself, in the
   * events and the HTTP API, stays as the client gave it.
   */
  static String streamId(String skuId) {
    return STREAM_PREFIX + skuId;
  }

  String skuId();

  /** Hands this event to the fold's method for its type. */
  void applyTo(Fold fold);

  /**
   * What applies a SKU's events: one method per event, none with a default, so that an event added
   * to this stream fails to compile wherever it is not handled. A fold an event does not change
   * says so with an empty method.
   */
  interface Fold {

    void on(SkuRegistered event);

    void on(StockReplenished event);

    void on(SaleScheduled event);

    void on(SalePaused event);

    void on(SaleResumed event);

    void on(StockAdjusted event);

    void on(PurchaseLimitChanged event);

    void on(DrawDecided event);
  }
}
