package io.stockade.api.reservation;

/** The events of one reservation's stream. */
public sealed interface ReservationEvent
    permits StockReserved, StockConfirmed, StockReleased, ReservationAbandoned {

  String reservationId();
}
