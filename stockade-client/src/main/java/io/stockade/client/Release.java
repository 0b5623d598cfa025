package io.stockade.client;

/** The answer of a release: {@code RELEASED}. */
public record Release(String reservationId, String status) {}
