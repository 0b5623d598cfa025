package io.stockade.client;

import java.time.Instant;

/** The answer of an extension: {@code RESERVED} until {@code expiresAt}. */
public record Extension(String reservationId, String status, Instant expiresAt) {}
