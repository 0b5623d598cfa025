package io.stockade.command.admission.redis;

import io.lettuce.core.cluster.SlotHash;
import io.stockade.gatekeys.GateKeyspace;
import io.stockade.gatekeys.PartitionKeys;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the gate keeps its keys. The gate's state is split into partitions; each partition is one
 * Redis Cluster hash slot (its keys share the hash tag {@code {tag}}, and are named by {@link
 * PartitionKeys}), so that every script acts on one slot and runs on one server. A SKU lives in the
 * partition of its placement key (its whole id, or the part {@code stockade.gate.placement-pattern}
 * picks); a reservation's intent record lives in the partition of its SKUs, one part per partition
 * when its SKUs lie in several.
 *
 * <p>Partition {@code i} of {@code n} has a tag whose slot lies in the {@code i}-th of {@code n}
 * equal ranges of the 16,384 slots, so that a cluster whose masters hold contiguous ranges (as
 * {@code redis-cli --cluster create} assigns them) gets an even share of partitions on each master.
 * Every instance computes the same tags from the same settings.
 */
public final class GateLayout {

  /** Sequence numbers are {@code counter * STRIDE + partition}: unique across partitions. */
  public static final int STRIDE = 1024;

  static final int SLOTS = SlotHash.SLOT_COUNT;

  private final List<Partition> partitions;
  private final Map<Integer, Partition> bySlot = new LinkedHashMap<>();
  private final Pattern placement;

  /**
   * @param count the number of partitions, 1 to {@link #STRIDE}
   * @param placement a pattern whose first group is the part of a SKU id that places the SKU, or
   *     null to place every SKU by its whole id
   */
  public GateLayout(int count, Pattern placement) {
    if (count < 1 || count > STRIDE) {
      throw new IllegalArgumentException("Partitions must be 1 to " + STRIDE + ", not " + count);
    }
    List<Partition> all = new ArrayList<>(count);
    for (int index = 0; index < count; index++) {
      Partition partition = new Partition(index, tag(index, count));
      all.add(partition);
      bySlot.put(partition.slot(), partition);
    }
    this.partitions = Collections.unmodifiableList(all);
    this.placement = placement;
  }

  /** The smallest tag {@code g<i>}, {@code g<i>.1}, ... whose slot lies in the i-th range. */
  private static String tag(int index, int count) {
    for (int attempt = 0; ; attempt++) {
      String tag = GateKeyspace.tag(index, attempt);
      if ((long) SlotHash.getSlot(tag) * count / SLOTS == index) {
        return tag;
      }
    }
  }

  public List<Partition> partitions() {
    return partitions;
  }

  public Partition partition(int index) {
    return partitions.get(index);
  }

  /** The partition whose tag hashes to {@code slot}, or null when none does. */
  public Partition partitionOfSlot(int slot) {
    return bySlot.get(slot);
  }

  /** The partition a SKU lives in. */
  public Partition of(String skuId) {
    if (partitions.size() == 1) {
      return partitions.get(0);
    }
    return partitions.get(
        (int) ((long) SlotHash.getSlot(placementKey(skuId)) * partitions.size() / SLOTS));
  }

  /**
   * Where the buckets of a SKU split into {@code buckets} lie, given which server holds each
   * partition: bucket 0 (its home, which takes the replenishments) in the SKU's partition, each of
   * the others on the next server not yet holding one (in server order after the home's), in that
   * server's first partition after the home's. Beyond as many buckets as servers, they go round the
   * servers again; at most one bucket per partition.
   */
  public List<Partition> buckets(String skuId, int buckets, ToIntFunction<Partition> server) {
    Partition home = of(skuId);
    int count = Math.max(1, Math.min(buckets, partitions.size()));
    List<Partition> placed = new ArrayList<>(List.of(home));
    while (placed.size() < count) {
      Set<Integer> serversUsed = new HashSet<>();
      placed.forEach(partition -> serversUsed.add(server.applyAsInt(partition)));
      Partition next = null;
      for (int step = 1; step < partitions.size() && next == null; step++) {
        Partition candidate = partitions.get((home.index() + step) % partitions.size());
        if (!placed.contains(candidate) && !serversUsed.contains(server.applyAsInt(candidate))) {
          next = candidate;
        }
      }
      for (int step = 1; step < partitions.size() && next == null; step++) {
        Partition candidate = partitions.get((home.index() + step) % partitions.size());
        if (!placed.contains(candidate)) {
          next = candidate;
        }
      }
      placed.add(next);
    }
    return List.copyOf(placed);
  }

  /** The partitions of a SKU's buckets as its counters record them: their indices, home first. */
  public List<Partition> buckets(String recorded) {
    List<Partition> placed = new ArrayList<>();
    for (String index : recorded.trim().split(" ")) {
      placed.add(partitions.get(Integer.parseInt(index)));
    }
    return List.copyOf(placed);
  }

  /** How the counters record where a SKU's buckets lie. */
  public static String recorded(List<Partition> buckets) {
    StringBuilder recorded = new StringBuilder();
    for (Partition bucket : buckets) {
      recorded.append(recorded.length() == 0 ? "" : " ").append(bucket.index());
    }
    return recorded.toString();
  }

  /**
   * The bucket a user's reservations of a SKU split into {@code count} buckets take from: always
   * the same one, which holds the user's units of it, so that the per-user limit is checked in one
   * place.
   */
  public static int bucketOf(String userId, int count) {
    return Math.floorMod(userId.hashCode(), count);
  }

  /**
   * Bucket {@code bucket}'s share of {@code units} split over {@code count} buckets: even, the
   * first ones one unit more when it does not divide evenly. A registration and a rebuild share a
   * SKU's stock out alike.
   */
  public static long share(long units, int bucket, int count) {
    return units / count + (bucket < units % count ? 1 : 0);
  }

  /** The part of a SKU id that places it. */
  String placementKey(String skuId) {
    if (placement != null) {
      Matcher matcher = placement.matcher(skuId);
      if (matcher.find() && matcher.groupCount() >= 1 && matcher.group(1) != null) {
        return matcher.group(1);
      }
    }
    return skuId;
  }

  /**
   * The placement pattern as the markers record it ({@code ""} for none): with the number of
   * partitions, what instances sharing a gate must agree on.
   */
  public String placement() {
    return placement == null ? "" : placement.pattern();
  }

  public String counters(String skuId) {
    return of(skuId).counters(skuId);
  }

  public String holders(String skuId) {
    return of(skuId).holders(skuId);
  }

  public String replenishments(String skuId) {
    return of(skuId).replenishments(skuId);
  }

  /** One partition: one hash slot, and the names of the gate's keys in it. */
  public record Partition(int index, String tag) implements PartitionKeys {

    public int slot() {
      return SlotHash.getSlot(tag);
    }
  }
}
