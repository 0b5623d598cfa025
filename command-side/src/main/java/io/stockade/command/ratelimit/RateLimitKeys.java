package io.stockade.command.ratelimit;

import io.stockade.gatekeys.GateKeyspace;

/**
 * Names of the rate limits' Redis keys: under the gate's prefix and with its hash-tag convention,
 * but not the gate's state. A gate rebuild leaves them alone and the reconciliation does not read
 * them.
 */
final class RateLimitKeys {

  /** Every rate-limit key starts with it (the gate's rebuild skips it). */
  static final String PREFIX = GateKeyspace.RATE_LIMITS_PREFIX;

  private RateLimitKeys() {}

  /** Token bucket of one user (the {@code userId} of reservations). */
  static String user(String userId) {
    return PREFIX + "user:{" + userId + "}";
  }

  /** Token bucket of one calling client (the authenticated principal, or {@code anonymous}). */
  static String client(String client) {
    return PREFIX + "client:{" + client + "}";
  }
}
