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
   * Where a partition's tag starts in each of its keys: after {@link
   * GateKeyspace#PARTITION_PREFIX}.
   */
  private static final int TAG_START = GateKeyspace.PARTITION_PREFIX.length();

  /**
   * The names {@link #parse(String)} tells apart, as they follow a partition's prefix ({@code
   * stockade:{<tag>}:}): taken once from {@link PartitionKeys}, so that a parse compares each key
   * with them in place and builds no names of its own.
   */
  private static final PartitionKeys UNTAGGED = PartitionKeys.of("");

  private static final String MARKER_NAME = afterPrefix(UNTAGGED.marker());

  private static final String PENDING_NAME = afterPrefix(UNTAGGED.pending());

  private static final String ADJUSTMENTS_PENDING_NAME = afterPrefix(UNTAGGED.adjustmentsPending());

  private static final String COUNTERS_PREFIX = afterPrefix(UNTAGGED.counters(""));

  private static final String INTENT_PREFIX = afterPrefix(UNTAGGED.intent(""));

  /**
   * What the key is, or null when it is none of these kinds (another key of a partition, such as a
   * SKU's {@code :holders}, or no key of the gate at all).
   */
  public static GateKey parse(String key) {
    if (!key.startsWith(GateKeyspace.PARTITION_PREFIX)) {
      return null;
    }
    int close = key.indexOf('}', TAG_START);
    if (close < 0 || !isName(key, TAG_START, close)) {
      return null;
    }
    // Every key of the partition goes on with "}:" and its name.
    int name = close + 2;
    if (key.length() < name || key.charAt(close + 1) != ':') {
      return null;
    }
    if (isAt(key, name, MARKER_NAME)) {
      return new GateKey(Kind.MARKER, tag(key, close), null);
    }
    if (isAt(key, name, PENDING_NAME)) {
      return new GateKey(Kind.PENDING, tag(key, close), null);
    }
    if (isAt(key, name, ADJUSTMENTS_PENDING_NAME)) {
      return new GateKey(Kind.ADJUSTMENTS_PENDING, tag(key, close), null);
    }
    String id = idAfter(key, name, COUNTERS_PREFIX);
    if (id != null) {
      return new GateKey(Kind.COUNTERS, tag(key, close), id);
    }
    id = idAfter(key, name, INTENT_PREFIX);
    if (id != null) {
      return new GateKey(Kind.INTENT, tag(key, close), id);
    }
    return null;
  }

  /** A name of an untagged partition's key without the partition's prefix. */
  private static String afterPrefix(String untagged) {
    return untagged.substring(GateKeyspace.partition("").length());
  }

  /** The tag of a key whose tag ends at {@code close}. */
  private static String tag(String key, int close) {
    return key.substring(TAG_START, close);
  }

  /** Whether {@code key} from {@code from} on is {@code name}, and no more. */
  private static boolean isAt(String key, int from, String name) {
    return key.length() - from == name.length() && key.startsWith(name, from);
  }

  /**
   * The id that follows {@code prefix} at {@code from} in {@code key} to its end, or null when
   * there is none.
   */
  private static String idAfter(String key, int from, String prefix) {
    if (!key.startsWith(prefix, from)) {
      return null;
    }
    int id = from + prefix.length();
    return isName(key, id, key.length()) ? key.substring(id) : null;
  }

  /**
   * Whether {@code value} from {@code from} to {@code to} is a tag, SKU id or reservation id: not
   * empty, without {@code ':'} (what separates a SKU's counters from its {@code :holders}) and
   * without braces.
   */
  private static boolean isName(String value, int from, int to) {
    if (from >= to) {
      return false;
    }
    for (int i = from; i < to; i++) {
      char c = value.charAt(i);
      if (c == ':' || c == '{' || c == '}') {
        return false;
      }
    }
    return true;
  }
}
