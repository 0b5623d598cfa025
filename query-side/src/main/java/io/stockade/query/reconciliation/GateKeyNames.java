package io.stockade.query.reconciliation;

/**
 * The names of the admission gate's Redis keys that the reconciliation reads. They belong to the
 * command side (see "The gate's Redis keys" in docs/design.md); the query side keeps its own copy
 * so that it depends on the command side's data, never on its code.
 *
 * <p>The gate's keys are grouped into partitions, each with a hash tag {@code T} (no {@code ':'}
 * and no braces), so that every key one script touches lies in one Redis Cluster slot:
 *
 * <ul>
 *   <li>{@code stockade:{T}:gate}: hash, the partition's marker ({@code epoch}, {@code runId},
 *       {@code partitions} and {@code placement} while open; {@code building} while rebuilt);
 *   <li>{@code stockade:{T}:gate:pending}: sorted set of intent key names admitted but not yet
 *       known to be recorded, scored by epoch ms;
 *   <li>{@code stockade:{T}:gate:adjustments-pending}: sorted set of the adjustment takes not yet
 *       known to be recorded ({@code "<skuId> <adjustmentId>"}), scored by epoch ms, each with its
 *       entry in the SKU's {@code stockade:{T}:sku:<skuId>:adjustments} hash ({@code "<quantity>
 *       <units> <state>"});
 *   <li>{@code stockade:{T}:sku:<skuId>}: hash, counters of the SKU in that partition (a SKU may
 *       have counters in several partitions: its numbers are their sum);
 *   <li>{@code stockade:{T}:reservation:<reservationId>}: hash, an intent record, or the part of
 *       one that holds the reservation's lines of that partition.
 * </ul>
 *
 * Other keys of a partition ({@code :gate:sequence}, the decision stream {@code :gate:decisions}, a
 * SKU's {@code :holders} and {@code :replenishments}) are not read. The reconciliation does not
 * know the partitions or their number: a full check finds them in the keys, and the routine checks
 * after it name the keys of the partitions it found.
 */
final class GateKeyNames {

  /** What a key of a partition is, for the reconciliation. */
  enum Kind {
    MARKER,
    PENDING,
    ADJUSTMENTS_PENDING,
    COUNTERS,
    INTENT
  }

  /**
   * A key the reconciliation reads: its kind, its partition's tag and, for counters and intents,
   * the SKU's or the reservation's id (else null).
   */
  record GateKey(String name, Kind kind, String tag, String id) {}

  private static final String PREFIX = "stockade:{";

  /**
   * SCAN pattern of every key of every partition (and of nothing else of Stockade's: the rate
   * limits' keys start with {@code stockade:ratelimit:}). Braces are literal in a SCAN pattern.
   */
  static final String PARTITION_KEYS_PATTERN = PREFIX + "*}:*";

  /** SCAN pattern of every partition's marker (and of no other key the gate writes). */
  static final String MARKER_KEYS_PATTERN = PREFIX + "*}:gate";

  private static final String MARKER = "gate";
  private static final String PENDING = "gate:pending";
  private static final String ADJUSTMENTS_PENDING = "gate:adjustments-pending";
  private static final String ADJUSTMENTS = ":adjustments";
  private static final String COUNTERS = "sku:";
  private static final String INTENT = "reservation:";

  private GateKeyNames() {}

  /** The name of a partition's key of this kind; {@code id} is the SKU's or reservation's. */
  static String name(Kind kind, String tag, String id) {
    String partition = PREFIX + tag + "}:";
    return switch (kind) {
      case MARKER -> partition + MARKER;
      case PENDING -> partition + PENDING;
      case ADJUSTMENTS_PENDING -> partition + ADJUSTMENTS_PENDING;
      case COUNTERS -> partition + COUNTERS + id;
      case INTENT -> partition + INTENT + id;
    };
  }

  /** The name of a SKU's adjustments hash in a partition. */
  static String adjustments(String tag, String skuId) {
    return name(Kind.COUNTERS, tag, skuId) + ADJUSTMENTS;
  }

  /**
   * What the key is, or null when it is none of the keys the reconciliation reads (another key of a
   * partition, such as a SKU's {@code :holders}, or no key of the gate at all).
   */
  static GateKey parse(String key) {
    if (!key.startsWith(PREFIX)) {
      return null;
    }
    int close = key.indexOf('}', PREFIX.length());
    if (close < 0 || close + 1 >= key.length() || key.charAt(close + 1) != ':') {
      return null;
    }
    String tag = key.substring(PREFIX.length(), close);
    if (!isName(tag)) {
      return null;
    }
    String rest = key.substring(close + 2);
    if (rest.equals(MARKER)) {
      return new GateKey(key, Kind.MARKER, tag, null);
    }
    if (rest.equals(PENDING)) {
      return new GateKey(key, Kind.PENDING, tag, null);
    }
    if (rest.equals(ADJUSTMENTS_PENDING)) {
      return new GateKey(key, Kind.ADJUSTMENTS_PENDING, tag, null);
    }
    if (rest.startsWith(COUNTERS) && isName(rest.substring(COUNTERS.length()))) {
      return new GateKey(key, Kind.COUNTERS, tag, rest.substring(COUNTERS.length()));
    }
    if (rest.startsWith(INTENT) && isName(rest.substring(INTENT.length()))) {
      return new GateKey(key, Kind.INTENT, tag, rest.substring(INTENT.length()));
    }
    return null;
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
