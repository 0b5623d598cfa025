package io.stockade.api.reservation;

/** The events of one reservation's stream. */
public sealed interface ReservationEvent
    permits StockReserved,
        StockConfirmed,
        StockReleased,
        ReservationExtended,
        ReservationAbandoned {

  /** What begins the aggregate identifier of every reservation's stream in the event store. */
  String STREAM_PREFIX = "reservation:";

  /**
   * The identifier of a reservation's stream in the event store: its own namespace, so that no
   * reservation id can collide with a SKU id (see {@code SkuEvent#streamId}). The id itself, in the
   * events and the HTTP API, stays as the client gave it.
   */
  static String streamId(String reservationId) {
    return STREAM_PREFIX + reservationId;
  }

  String reservationId();

  /** Hands this event to the fold's method for its type. */
  void applyTo(Fold fold);

  /**
   * What applies a reservation's events: one method per event, none with a default, so that an
   * event added to this stream fails to compile wherever it is not handled. A fold an event does
   * not change says so with an empty method.
   */
  interface Fold {

    void on(StockReserved event);

    void on(StockConfirmed event);

    void on(StockReleased event);

    void on(ReservationExtended event);

    void on(ReservationAbandoned event);
  }
}
