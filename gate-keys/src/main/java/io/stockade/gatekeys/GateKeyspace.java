package io.stockade.gatekeys;

/**
 * Where the admission gate's keys lie in Redis: every one under {@code stockade:}, a partition's
 * under {@code stockade:{<tag>}:} (see {@link PartitionKeys}), and the rate limits' token buckets
 * under the same prefix but outside every partition.
 *
 * <p>The gate's state is split into partitions; each partition is one Redis Cluster hash slot (its
 * keys share the hash tag {@code {<tag>}}), so that every script acts on one slot and runs on one
 * server. Partition {@code i} has the first of the tags {@code g<i>}, {@code g<i>.1}, {@code
 * g<i>.2}, ... that the command side's layout accepts for it (by the tag's slot).
 */
public final class GateKeyspace {

  /** What every key of the gate and of the rate limits starts with. */
  static final String NAMESPACE = "stockade:";

  /** What every key of a partition starts with, before its tag. */
  static final String PARTITION_PREFIX = NAMESPACE + "{";

  private static final String TAG_PREFIX = "g";

  /** SCAN pattern of every key of the gate, and of the rate limits' (what a rebuild lists). */
  public static final String PATTERN = NAMESPACE + "*";

  /**
   * Keys under the gate's prefix that are not the gate's state: the rate limits' token buckets. A
   * rebuild leaves them as they are; the reconciliation does not read them.
   */
  public static final String RATE_LIMITS_PREFIX = NAMESPACE + "ratelimit:";

  /**
   * SCAN pattern of every key of every partition (and of nothing else of Stockade's). Braces are
   * literal in a SCAN pattern.
   */
  public static final String PARTITION_KEYS_PATTERN = partition("*") + "*";

  /** SCAN pattern of every partition's marker (and of no other key the gate writes). */
  public static final String MARKERS_PATTERN = PartitionKeys.of("*").marker();

  private GateKeyspace() {}

  /** What every key of the partition tagged {@code tag} starts with. */
  static String partition(String tag) {
    return PARTITION_PREFIX + tag + "}:";
  }

  /**
   * The {@code attempt}-th candidate tag of partition {@code index}: {@code g<index>}, then {@code
   * g<index>.<attempt>}.
   */
  public static String tag(int index, int attempt) {
    return attempt == 0 ? TAG_PREFIX + index : TAG_PREFIX + index + "." + attempt;
  }

  /** The index of the partition a tag names ({@link #tag(int, int)}'s {@code index}). */
  public static int partitionIndex(String tag) {
    if (!tag.startsWith(TAG_PREFIX)) {
      throw new IllegalArgumentException("Not a partition's tag: " + tag);
    }
    int dot = tag.indexOf('.');
    return Integer.parseInt(tag.substring(TAG_PREFIX.length(), dot < 0 ? tag.length() : dot));
  }
}
