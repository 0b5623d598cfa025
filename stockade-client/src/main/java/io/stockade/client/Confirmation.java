package io.stockade.client;

import java.util.List;

/** The answer of a confirmation: {@code CONFIRMED} and the units sold. */
public record Confirmation(String reservationId, String status, List<ReservationLine> lines) {}
