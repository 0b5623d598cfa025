package io.stockade.gatekeys;

/**
 * The names of the gate's keys in one partition: every key is {@code stockade:{<tag>}:...}, so that
 * all of them lie in the hash slot of the partition's tag (see {@link GateKeyspace}). The one
 * definition of each name, for the command side's gate (whose partitions implement this), the query
 * side's reconciliation and the system tests (which know a partition by its tag: {@link
 * #of(String)}). docs/design.md lists the same keys with their contents ("The gate's Redis keys").
 */
public interface PartitionKeys {

  /** The partition's hash tag: no {@code ':'}, no braces. */
  String tag();

  /** The keys of the partition tagged {@code tag} ({@code "*"}: a SCAN pattern of every one). */
  static PartitionKeys of(String tag) {
    return new Tagged(tag);
  }

  /**
   * Hash naming the epoch the gate's data belongs to ({@code epoch}, {@code runId} of the Redis
   * servers it was built on, the layout's {@code partitions} and {@code placement}) or the epoch
   * being rebuilt ({@code building}). Every script checks its partition's marker first: a partition
   * without it (its server restarted empty, failed over, was flushed) admits nothing.
   */
  default String marker() {
    return prefix() + "gate";
  }

  /** The partition's admission counter: a sequence number is {@code counter * 1024 + partition}. */
  default String sequence() {
    return prefix() + "gate:sequence";
  }

  /**
   * Sorted set of the intent keys of admitted reservations not yet known to be recorded, scored by
   * admission time: the recovery sweeper's work list.
   */
  default String pending() {
    return prefix() + "gate:pending";
  }

  /**
   * Stream of the decisions the gate made in this partition (admitted or refused), in the order it
   * made them, until they are moved to the database: see reserve.lua and the command side's {@code
   * DecisionDrain}. A rebuild keeps it.
   */
  default String decisions() {
    return prefix() + "gate:decisions";
  }

  /**
   * Hash of the refusals dropped while the decision stream held its whole backlog (field {@code
   * count}, and {@code "<skuId> <userId>"} with each one's refusals), until the gap is closed by
   * entries in the stream: see reserve.lua and gap.lua. A rebuild keeps it.
   */
  default String dropped() {
    return prefix() + "gate:dropped";
  }

  /**
   * Sorted set of the moves of units out of this partition's buckets not yet known to have arrived,
   * scored by this partition's server clock (ms): {@code "<moveId> <skuId> <targetPartition>
   * <units>"}.
   */
  default String transfers() {
    return prefix() + "gate:moves-out";
  }

  /** Hash of the same moves as {@link #transfers()}, by move id. */
  default String transferIds() {
    return prefix() + "gate:moves-out-ids";
  }

  /**
   * Hash of the moves into this partition's buckets, by move id: {@code "EXPECTED <skuId> <units at
   * most>"} until their units arrive, then {@code "APPLIED <skuId> <units>"} until the source is
   * done with them.
   */
  default String transfersIn() {
    return prefix() + "gate:moves-in";
  }

  /** The last move id this partition gave out (the ids of moves into its buckets). */
  default String transferSequence() {
    return prefix() + "gate:move-sequence";
  }

  /**
   * Sorted set of the adjustment takes in this partition not yet known to be recorded, {@code
   * "<skuId> <adjustmentId>"} scored by this partition's server clock (ms): the work list of the
   * sweeper that settles takes whose event was never stored.
   */
  default String adjustmentsPending() {
    return prefix() + "gate:adjustments-pending";
  }

  /**
   * Hash of a SKU's counters in this partition: available, reserved, sold, limit (a SKU may have
   * counters in several partitions, its buckets: its numbers are their sum).
   */
  default String counters(String skuId) {
    return prefix() + "sku:" + skuId;
  }

  /** Hash of the units each user holds (reserved or confirmed) of a SKU. */
  default String holders(String skuId) {
    return counters(skuId) + ":holders";
  }

  /**
   * Hash of the stock adjustments applied to a SKU in this bucket: id to {@code "<quantity> <units>
   * <state>"} (the whole adjustment's signed quantity, the units taken or added here, PENDING or
   * RECORDED); see adjust.lua.
   */
  default String adjustments(String skuId) {
    return counters(skuId) + ":adjustments";
  }

  /** Hash of the replenishments applied to a SKU: id to quantity. */
  default String replenishments(String skuId) {
    return counters(skuId) + ":replenishments";
  }

  /**
   * Hash recording the part of an admitted reservation in this partition: its state, user, the
   * lines of this partition's SKUs, and the admission.
   */
  default String intent(String reservationId) {
    return prefix() + "reservation:" + reservationId;
  }

  /** The reservation id inside one of this partition's intent keys. */
  default String reservationId(String intentKey) {
    return intentKey.substring(intent("").length());
  }

  private String prefix() {
    return GateKeyspace.partition(tag());
  }
}
