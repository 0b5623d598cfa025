package io.stockade.command.admission;

/**
 * Names of the gate's Redis keys. The part in braces is the Redis Cluster hash tag: everything
 * about one SKU lives in that SKU's slot.
 */
final class GateKeys {

  /**
   * Hash naming the epoch the gate's data belongs to ({@code epoch}, {@code runId} of the Redis
   * server it was built on) or the epoch being rebuilt ({@code building}). Every script checks it
   * first: a Redis without it (restarted empty, failed over, flushed) admits nothing.
   */
  static final String MARKER = "stockade:gate";

  /** Every key of the gate, and the rate limits' (below): what a rebuild clears, but those. */
  static final String PATTERN = "stockade:*";

  /**
   * Keys under the gate's prefix that are not the gate's state: the rate limits' token buckets
   * ({@code io.stockade.command.ratelimit}). A rebuild leaves them as they are.
   */
  static final String NOT_GATE_PREFIX = "stockade:ratelimit:";

  static final String SEQUENCE = "stockade:gate:sequence";

  /**
   * Sorted set of the intent keys of admitted reservations not yet known to be recorded, scored by
   * admission time: the recovery sweeper's work list.
   */
  static final String PENDING = "stockade:gate:pending";

  private static final String INTENT_PREFIX = "stockade:reservation:{";

  private GateKeys() {}

  /** Hash of a SKU's counters: available, reserved, sold, limit. */
  static String counters(String skuId) {
    return "stockade:sku:{" + skuId + "}";
  }

  /** Hash of the units each user holds (reserved or confirmed) of a SKU. */
  static String holders(String skuId) {
    return "stockade:sku:{" + skuId + "}:holders";
  }

  /** Hash of the replenishments applied to a SKU: id to quantity. */
  static String replenishments(String skuId) {
    return "stockade:sku:{" + skuId + "}:replenishments";
  }

  /** Hash recording one admitted reservation: its state, user, lines and admission. */
  static String intent(String reservationId) {
    return INTENT_PREFIX + reservationId + "}";
  }

  /** The reservation id inside an intent key. */
  static String reservationId(String intentKey) {
    return intentKey.substring(INTENT_PREFIX.length(), intentKey.length() - 1);
  }
}
