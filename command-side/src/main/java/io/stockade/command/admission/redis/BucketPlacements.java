package io.stockade.command.admission.redis;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.redis.GateLayout.Partition;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where each SKU's buckets lie. A SKU's home counters record it; it is read once and remembered for
 * the epoch, since every operation on a SKU asks it first (on the hot path, for every line) and it
 * changes only when the gate is rebuilt, which opens a new epoch. A SKU registered anew gets its
 * buckets here, one per server where there are enough.
 */
final class BucketPlacements {

  /** Partitions in their order: the order in which a reservation's parts are taken. */
  static final Comparator<Partition> BY_INDEX = Comparator.comparingInt(Partition::index);

  /** SKUs whose buckets are remembered; beyond, the memory starts afresh. */
  private static final int PLACEMENTS_REMEMBERED = 100_000;

  private final GateScripts scripts;
  private final GateLayout layout;
  private final Map<String, List<Partition>> placements = new ConcurrentHashMap<>();
  private volatile long placementsEpoch;

  BucketPlacements(GateScripts scripts, GateLayout layout) {
    this.scripts = scripts;
    this.layout = layout;
  }

  /**
   * The partitions of a SKU's buckets: read once from its home counters (which record where they
   * lie; that never changes until the gate is rebuilt, which opens a new epoch), then remembered
   * for the epoch. An unknown SKU is not remembered: it may be registered later.
   */
  List<Partition> placement(String skuId) {
    long epoch = scripts.session().epoch();
    if (placementsEpoch != epoch) {
      placements.clear();
      placementsEpoch = epoch;
    }
    List<Partition> placement = placements.get(skuId);
    if (placement != null) {
      return placement;
    }
    Partition home = layout.of(skuId);
    if (layout.partitions().size() == 1) {
      return List.of(home);
    }
    Object buckets = scripts.read(redis -> redis.opsForHash().get(home.counters(skuId), "buckets"));
    if (buckets == null) {
      return List.of(home);
    }
    placement = layout.buckets(buckets.toString());
    remember(skuId, placement);
    return placement;
  }

  /**
   * Where a SKU being registered gets its buckets. A registration seen before keeps the placement
   * it got, wherever the masters are now; a new one spreads its buckets over the servers.
   */
  List<Partition> forRegistration(GateSession session, String skuId, int buckets) {
    Partition home = layout.of(skuId);
    Object recorded =
        scripts.read(redis -> redis.opsForHash().get(home.counters(skuId), "buckets"));
    return recorded != null
        ? layout.buckets(recorded.toString())
        : buckets == 1
            ? List.of(home)
            : layout.buckets(skuId, buckets, GateServers.servers(session.redis()));
  }

  void remember(String skuId, List<Partition> placement) {
    if (placements.size() >= PLACEMENTS_REMEMBERED) {
      placements.clear();
    }
    placements.put(skuId, placement);
  }

  /** The partition a line of the user's is admitted in: its SKU's, or the user's bucket's. */
  Partition partitionOf(String skuId, String userId) {
    List<Partition> placement = placement(skuId);
    return placement.size() == 1
        ? placement.get(0)
        : placement.get(GateLayout.bucketOf(userId, placement.size()));
  }

  /** Whether any of the lines is of a SKU split into buckets. */
  boolean inBuckets(List<ReservationLine> lines) {
    if (layout.partitions().size() == 1) {
      return false;
    }
    for (ReservationLine line : lines) {
      if (placement(line.skuId()).size() > 1) {
        return true;
      }
    }
    return false;
  }

  /**
   * The partitions that may hold a part of a reservation of these lines, in partition order: each
   * line's SKU's, and every bucket's of a SKU split into buckets.
   */
  Set<Partition> locations(List<ReservationLine> lines) {
    Set<Partition> locations = new TreeSet<>(BY_INDEX);
    for (ReservationLine line : lines) {
      locations.addAll(placement(line.skuId()));
    }
    return locations;
  }
}
