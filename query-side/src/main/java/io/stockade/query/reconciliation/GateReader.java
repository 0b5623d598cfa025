package io.stockade.query.reconciliation;

import io.stockade.gatekeys.GateKey;
import io.stockade.gatekeys.GateKey.Kind;
import io.stockade.gatekeys.GateKeyspace;
import io.stockade.gatekeys.PartitionKeys;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * Reads the admission gate's state from Redis, read-only: every partition's marker, the pending
 * admissions, every intent record and every SKU's counters (named by {@link PartitionKeys}). Not
 * one atomic snapshot (the gate keeps working while it is read): the reconciliation treats what
 * changes between the reads as work in flight.
 *
 * <p>On one Redis, one SCAN finds the keys. On a Redis Cluster, where a SCAN only walks the keys of
 * the node it is sent to, every master that serves slots is scanned in turn ({@link
 * RedisClusterConnection#redis.scan(RedisClusterNode, ScanOptions)}), and the read fails when some
 * slots have no master (a cluster in that state cannot be read whole). The keys are then read in
 * pipelined batches: on a cluster, Lettuce sends each single-key command of a pipeline to the
 * master of its key's slot, so the batches need not be split by node.
 */
@Component
class GateReader {

  /**
   * One intent record of a partition: the reservation's lines in that partition, and while it is
   * pending there, for how long (milliseconds), by the clock of the Redis that holds the partition:
   * the command side scores a pending entry with that Redis's TIME, so its age is told by one clock
   * whatever the clocks of the instances that admit and reconcile. {@code confirmed}: the units of
   * those lines a partial confirmation sold (its field {@code confirmed}, a quantity of 0 for a SKU
   * given back whole); null when the part has no such field (not confirmed, or confirmed whole).
   */
  record Part(
      String tag,
      String state,
      Map<String, Long> lines,
      Long pendingFor,
      Map<String, Long> confirmed) {

    /** The units this part sold, per SKU with at least one: all its lines unless partial. */
    Map<String, Long> sold() {
      Map<String, Long> sold = new LinkedHashMap<>();
      if (CONFIRMED.equals(state)) {
        (confirmed == null ? lines : confirmed)
            .forEach(
                (sku, quantity) -> {
                  if (quantity > 0) {
                    sold.merge(sku, quantity, Long::sum);
                  }
                });
      }
      return sold;
    }
  }

  /**
   * A reservation's intent: its parts (one per partition its SKUs lie in), their lines summed, and
   * their state ({@link #state(List)}).
   */
  record Intent(String reservationId, String state, Map<String, Long> lines, List<Part> parts) {

    /**
     * The units the gate has sold of it, per SKU with at least one: the sum of its CONFIRMED parts'
     * ({@link Part#sold()}).
     */
    Map<String, Long> sold() {
      Map<String, Long> sold = new TreeMap<>();
      parts.forEach(part -> part.sold().forEach((sku, n) -> sold.merge(sku, n, Long::sum)));
      return sold;
    }
  }

  /**
   * The gate as read. {@code marker} is OPEN (every partition open in the same epoch), REBUILDING
   * (some partition rebuilt) or ABSENT (Redis lost the gate or some partition of it, or it was
   * never built): see {@link #markerState}; the counters are compared whatever it says. {@code
   * skus} sums each SKU's counters over the partitions; {@code pendingAdmissions} counts the
   * pending entries of every partition. {@code full}: every intent was read ({@link #read()}), else
   * only those asked for and the pending ones ({@link #readChanged}). {@code layout}: what the
   * routine reads after this one need to know, null unless the marker is OPEN.
   */
  record Snapshot(
      String marker,
      Map<String, Numbers> skus,
      List<Intent> intents,
      int pendingAdmissions,
      List<PendingAdjustment> pendingAdjustments,
      boolean full,
      Layout layout) {}

  /**
   * Units a negative adjustment took from a SKU's counters in one partition, its event not yet
   * known to be stored: pending there for {@code pendingFor} ms, by the clock of the Redis that
   * holds the partition (which timed the take).
   */
  record PendingAdjustment(String skuId, String adjustmentId, long units, long pendingFor) {}

  /**
   * The gate's layout as found by a read: the epoch every partition was open in, the partitions'
   * tags, and per SKU the tags of the partitions that held counters of it.
   */
  record Layout(String epoch, List<String> tags, Map<String, Set<String>> counterTags) {}

  static final String OPEN = "OPEN";
  static final String REBUILDING = "REBUILDING";
  static final String ABSENT = "ABSENT";
  static final String RESERVED = "RESERVED";
  static final String CONFIRMED = "CONFIRMED";

  private final GateRedis redis;
  private final GateKeyReads reads;

  GateReader(StringRedisTemplate redis) {
    this.redis = new GateRedis(redis);
    this.reads = new GateKeyReads(this.redis);
  }

  /**
   * Reads the whole gate: every key of every partition, found by SCAN (on a Redis Cluster, of every
   * master). Its cost grows with the intents kept (24 h of them). Throws Spring's {@code
   * DataAccessException} when Redis cannot be read.
   */
  Snapshot read() {
    Map<Kind, List<String>> keys = new EnumMap<>(Kind.class);
    for (Kind kind : Kind.values()) {
      keys.put(kind, new ArrayList<>());
    }
    for (String name : redis.scan(GateKeyspace.PARTITION_KEYS_PATTERN)) {
      GateKey key = GateKey.parse(name);
      if (key != null) {
        keys.get(key.kind()).add(name);
      }
    }
    // In the order the gate's work goes: an admission is listed as pending before its intent and
    // counters are read, so whatever the counters show of it is explained when it is young.
    Map<String, Map<String, String>> markers =
        reads.markers(redis.ofType(keys.get(Kind.MARKER), DataType.HASH));
    String marker = markerState(List.copyOf(markers.values()));
    Map<String, Long> pending = reads.pending(redis.ofType(keys.get(Kind.PENDING), DataType.ZSET));
    List<Intent> intents =
        reads.intents(redis.ofType(keys.get(Kind.INTENT), DataType.HASH), pending);
    List<PendingAdjustment> adjustments =
        reads.pendingAdjustments(redis.ofType(keys.get(Kind.ADJUSTMENTS_PENDING), DataType.ZSET));
    Map<String, Set<String>> counterTags = new HashMap<>();
    Map<String, Numbers> skus =
        reads.counters(redis.ofType(keys.get(Kind.COUNTERS), DataType.HASH), counterTags);
    Layout layout =
        OPEN.equals(marker)
            ? new Layout(epoch(markers), List.copyOf(markers.keySet()), counterTags)
            : null;
    return new Snapshot(marker, skus, intents, pending.size(), adjustments, true, layout);
  }

  /**
   * Reads what a routine check needs, without a SCAN, in the partitions of {@code layout}: every
   * partition's marker and pending admissions, the intents of {@code reservationIds} and of the
   * pending admissions, and the counters of every SKU the layout knows and of {@code skuIds}
   * (looked for in every partition). Its cost grows with what it is asked for, not with the intents
   * kept. Null when the partitions are no longer the layout's (a marker missing, not OPEN, or of
   * another epoch: the gate was lost, rebuilt or laid out anew), and only a full {@link #read()}
   * can tell what the gate holds. Throws Spring's {@code DataAccessException} when Redis cannot be
   * read.
   */
  Snapshot readChanged(Layout layout, Set<String> reservationIds, Set<String> skuIds) {
    List<String> tags = layout.tags();
    // By name, without the type check of markersOf: the layout was read with one.
    Map<String, Map<String, String>> markers = reads.markers(markerNames(tags));
    String marker = markerState(List.copyOf(markers.values()));
    if (!OPEN.equals(marker)
        || markers.size() != tags.size()
        || !layout.epoch().equals(epoch(markers))) {
      return null;
    }
    Map<String, Long> pending =
        reads.pending(tags.stream().map(tag -> PartitionKeys.of(tag).pending()).toList());
    Set<String> intentKeys = new LinkedHashSet<>();
    for (String member : pending.keySet()) {
      GateKey key = GateKey.parse(member);
      if (key != null && key.kind() == Kind.INTENT) {
        intentKeys.add(member);
      }
    }
    for (String reservationId : reservationIds) {
      tags.forEach(tag -> intentKeys.add(PartitionKeys.of(tag).intent(reservationId)));
    }
    List<Intent> intents = reads.intents(List.copyOf(intentKeys), pending);
    List<PendingAdjustment> adjustments =
        reads.pendingAdjustments(
            tags.stream().map(tag -> PartitionKeys.of(tag).adjustmentsPending()).toList());
    // A SKU's counters stay in the partitions they were placed in; one whose counters vanished is
    // still looked for there (its numbers then read as zero, and the check sees the difference).
    Map<String, Set<String>> counterTags = new HashMap<>();
    layout.counterTags().forEach((sku, in) -> counterTags.put(sku, new TreeSet<>(in)));
    Set<String> counterKeys = new LinkedHashSet<>();
    counterTags.forEach(
        (sku, in) -> in.forEach(tag -> counterKeys.add(PartitionKeys.of(tag).counters(sku))));
    for (String skuId : skuIds) {
      tags.forEach(tag -> counterKeys.add(PartitionKeys.of(tag).counters(skuId)));
    }
    Map<String, Numbers> skus = reads.counters(List.copyOf(counterKeys), counterTags);
    return new Snapshot(
        marker,
        skus,
        intents,
        pending.size(),
        adjustments,
        false,
        new Layout(layout.epoch(), tags, counterTags));
  }

  /** The epoch of the markers (one, when they are OPEN). */
  private static String epoch(Map<String, Map<String, String>> markers) {
    return markers.values().stream()
        .map(marker -> String.valueOf(longOrNull(marker.get("epoch"))))
        .findFirst()
        .orElse("");
  }

  /**
   * OPEN when there is at least one marker, every marker has an {@code epoch}, they all have the
   * same epoch and the same layout ({@code partitions}, and {@code placement} where the command
   * side records one), and their number is the number of partitions they say the layout has;
   * REBUILDING when any marker says {@code building}; ABSENT otherwise: no marker at all (Redis
   * lost the gate, or it was never built), or some partition's marker missing (a node of a cluster
   * that lost its data, say).
   */
  static String markerState(List<Map<String, String>> markers) {
    if (markers.stream().anyMatch(marker -> marker.containsKey("building"))) {
      return REBUILDING;
    }
    if (markers.isEmpty()) {
      return ABSENT;
    }
    Set<Long> epochs = new HashSet<>();
    Set<Long> partitions = new HashSet<>();
    Set<String> placements = new HashSet<>();
    for (Map<String, String> marker : markers) {
      Long epoch = longOrNull(marker.get("epoch"));
      Long layout = longOrNull(marker.get("partitions"));
      if (epoch == null || layout == null) {
        return ABSENT;
      }
      epochs.add(epoch);
      partitions.add(layout);
      placements.add(marker.getOrDefault("placement", ""));
    }
    boolean open =
        epochs.size() == 1
            && partitions.size() == 1
            && placements.size() == 1
            && partitions.iterator().next() == markers.size();
    return open ? OPEN : ABSENT;
  }

  /**
   * The state of a reservation from its parts' states. The command side changes a reservation one
   * partition at a time (each partition is a script call of its own), so parts that differ are a
   * change under way, or one that stopped half way. RESERVED wins: some of the reservation's units
   * are still held as reserved, so the reservation is in flight; a read model that already says
   * CONFIRMED or RELEASED then shows it as a mismatch, IN_FLIGHT while young and DRIFT if the parts
   * never catch up. Parts that are CONFIRMED and RELEASED at once (which the gate's rules never
   * make) read as their states joined with {@code +}: that agrees with no read model's status, so
   * the reservation is listed as a mismatch rather than passing for either.
   */
  static String state(List<Part> parts) {
    Set<String> states = new TreeSet<>();
    parts.forEach(part -> states.add(part.state()));
    if (states.size() == 1) {
      return states.iterator().next();
    }
    if (states.contains(RESERVED)) {
      return RESERVED;
    }
    return String.join("+", states);
  }

  /**
   * Every partition's marker, by the partition's tag, found by a SCAN of the markers' names alone
   * (on a Redis Cluster, of every master). Throws Spring's {@code DataAccessException} when Redis
   * cannot be read.
   */
  Map<String, Map<String, String>> markers() {
    List<String> names = new ArrayList<>();
    for (String name : redis.scan(GateKeyspace.MARKERS_PATTERN)) {
      GateKey key = GateKey.parse(name);
      if (key != null && key.kind() == Kind.MARKER) {
        names.add(name);
      }
    }
    return reads.markers(redis.ofType(names, DataType.HASH));
  }

  /**
   * The markers of these partitions, by tag, read by name without a SCAN; a partition without a
   * marker (or whose marker is no hash) is left out.
   */
  Map<String, Map<String, String>> markersOf(Collection<String> tags) {
    return reads.markers(redis.ofType(markerNames(tags), DataType.HASH));
  }

  private static List<String> markerNames(Collection<String> tags) {
    return tags.stream().map(tag -> PartitionKeys.of(tag).marker()).toList();
  }

  private static Long longOrNull(String value) {
    if (value == null) {
      return null;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException notANumber) {
      return null;
    }
  }
}
