package io.stockade.api.sku;

/** The events of one SKU's stream. */
public sealed interface SkuEvent
    permits SkuRegistered,
        StockReplenished,
        SaleScheduled,
        SalePaused,
        SaleResumed,
        StockAdjusted,
        PurchaseLimitChanged {

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
}
