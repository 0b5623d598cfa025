package io.stockade.api.reservation;

/** Asks for one reservation as the read model shows it. */
public record FindReservationQuery(String reservationId) {}
