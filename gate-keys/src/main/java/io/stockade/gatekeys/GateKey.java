package io.stockade.gatekeys;

/**
 * A key of a partition that a reader of the gate tells apart from the others (the query side's
 * reconciliation finds them by SCAN): its kind, its partition's tag and, for counters and intents,
 * the SKU's or the reservation's id (else null).
 */
public record GateKey(Kind kind, String tag, String id) {

  /** The kinds of key {@link #parse(String)} tells apart; see {@link PartitionKeys}. */
  public enum Kind {
    MARKER,
    PENDING,
    ADJUSTMENTS_PENDING,
    COUNTERS,
    INTENT
  }

  /** The key's name. */
  public String name() {
    PartitionKeys partition = PartitionKeys.of(tag);
    return switch (kind) {
      case MARKER -> partition.marker();
      case PENDING -> partition.pending();
      case ADJUSTMENTS_PENDING -> partition.adjustmentsPending();
      case COUNTERS -> partition.counters(id);
      case INTENT -> partition.intent(id);
    };
  }

  /**
   * What the key is, or null when it is none of these kinds (another key of a partition, such as a
   * SKU's {@code :holders}, or no key of the gate at all).
   */
  public static GateKey parse(String key) {
    if (!key.startsWith(GateKeyspace.PARTITION_PREFIX)) {
      return null;
    }
    int close = key.indexOf('}', GateKeyspace.PARTITION_PREFIX.length());
    if (close < 0) {
      return null;
    }
    String tag = key.substring(GateKeyspace.PARTITION_PREFIX.length(), close);
    if (!isName(tag)) {
      return null;
    }
    PartitionKeys partition = PartitionKeys.of(tag);
    if (key.equals(partition.marker())) {
      return new GateKey(Kind.MARKER, tag, null);
    }
    if (key.equals(partition.pending())) {
      return new GateKey(Kind.PENDING, tag, null);
    }
    if (key.equals(partition.adjustmentsPending())) {
      return new GateKey(Kind.ADJUSTMENTS_PENDING, tag, null);
    }
    String id = idAfter(partition.counters(""), key);
    if (id != null) {
      return new GateKey(Kind.COUNTERS, tag, id);
    }
    id = idAfter(partition.intent(""), key);
    if (id != null) {
      return new GateKey(Kind.INTENT, tag, id);
    }
    return null;
  }

  /** The id that follows {@code prefix} in {@code key}, or null when there is none. */
  private static String idAfter(String prefix, String key) {
    if (!key.startsWith(prefix)) {
      return null;
    }
    String id = key.substring(prefix.length());
    return isName(id) ? id : null;
  }

  /**
   * A tag, SKU id or reservation id: not empty, without {@code ':'} (what separates a SKU's
   * counters from its {@code :holders}) and without braces.
   */
  private static boolean isName(String value) {
    if (value.isEmpty()) {
      return false;
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == ':' || c == '{' || c == '}') {
        return false;
      }
    }
    return true;
  }
}
