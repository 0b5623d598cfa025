package io.stockade.query.reconciliation;

/**
 * The few names of the admission gate's Redis keys the reconciliation reads. They belong to the
 * command side (see "The gate's Redis keys" in the README); the query side keeps its own copy so
 * that it depends on the command side's data, never on its code.
 */
final class GateKeyNames {

  /**
   * Hash: {@code epoch} and {@code runId} while the gate is open, {@code building} while rebuilt.
   */
  static final String MARKER = "stockade:gate";

  /** Sorted set of intent keys admitted but not yet known to be recorded, scored by epoch ms. */
  static final String PENDING = "stockade:gate:pending";

  private static final String COUNTERS_PREFIX = "stockade:sku:{";
  private static final String INTENT_PREFIX = "stockade:reservation:{";

  /** SCAN pattern of every SKU's counters hash (not its {@code :holders} or others). */
  static final String COUNTERS_PATTERN = COUNTERS_PREFIX + "*}";

  /** SCAN pattern of every reservation's intent hash. */
  static final String INTENTS_PATTERN = INTENT_PREFIX + "*}";

  private GateKeyNames() {}

  /** Whether a key matched by {@link #COUNTERS_PATTERN} is a counters hash. */
  static boolean isCounters(String key) {
    return key.startsWith(COUNTERS_PREFIX)
        && key.endsWith("}")
        && key.indexOf('}') == key.length() - 1;
  }

  static String skuId(String countersKey) {
    return countersKey.substring(COUNTERS_PREFIX.length(), countersKey.length() - 1);
  }

  static boolean isIntent(String key) {
    return key.startsWith(INTENT_PREFIX)
        && key.endsWith("}")
        && key.indexOf('}') == key.length() - 1;
  }

  static String reservationId(String intentKey) {
    return intentKey.substring(INTENT_PREFIX.length(), intentKey.length() - 1);
  }
}
