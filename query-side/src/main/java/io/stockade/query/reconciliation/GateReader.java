package io.stockade.query.reconciliation;

import io.stockade.gatekeys.GateKey;
import io.stockade.gatekeys.GateKey.Kind;
import io.stockade.gatekeys.GateKeyspace;
import io.stockade.gatekeys.PartitionKeys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
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
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.zset.Tuple;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;
import org.springframework.stereotype.Component;

/**
 * Reads the admission gate's state from Redis, read-only: every partition's marker, the pending
 * admissions, every intent record and every SKU's counters (named by {@link PartitionKeys}). Not
 * one atomic snapshot (the gate keeps working while it is read): the reconciliation treats what
 * changes between the reads as work in flight.
 *
 * <p>On one Redis, one SCAN finds the keys. On a Redis Cluster, where a SCAN only walks the keys of
 * the node it is sent to, every master that serves slots is scanned in turn ({@link
 * RedisClusterConnection#scan(RedisClusterNode, ScanOptions)}), and the read fails when some slots
 * have no master (a cluster in that state cannot be read whole). The keys are then read in
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

  private static final int BATCH = 500;
  private static final int CLUSTER_SLOTS = 16384;
  private static final byte[] STATE = bytes("state");
  private static final byte[] LINES = bytes("lines");
  private static final byte[] CONFIRMED_LINES = bytes("confirmed");

  private final StringRedisTemplate redis;

  GateReader(StringRedisTemplate redis) {
    this.redis = redis;
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
    for (String name : scan(GateKeyspace.PARTITION_KEYS_PATTERN)) {
      GateKey key = GateKey.parse(name);
      if (key != null) {
        keys.get(key.kind()).add(name);
      }
    }
    // In the order the gate's work goes: an admission is listed as pending before its intent and
    // counters are read, so whatever the counters show of it is explained when it is young.
    Map<String, Map<String, String>> markers =
        markers(ofType(keys.get(Kind.MARKER), DataType.HASH));
    String marker = markerState(List.copyOf(markers.values()));
    Map<String, Long> pending = pending(ofType(keys.get(Kind.PENDING), DataType.ZSET));
    List<Intent> intents = intents(ofType(keys.get(Kind.INTENT), DataType.HASH), pending);
    List<PendingAdjustment> adjustments =
        pendingAdjustments(ofType(keys.get(Kind.ADJUSTMENTS_PENDING), DataType.ZSET));
    Map<String, Set<String>> counterTags = new HashMap<>();
    Map<String, Numbers> skus =
        counters(ofType(keys.get(Kind.COUNTERS), DataType.HASH), counterTags);
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
    Map<String, Map<String, String>> markers = markers(markerNames(tags));
    String marker = markerState(List.copyOf(markers.values()));
    if (!OPEN.equals(marker)
        || markers.size() != tags.size()
        || !layout.epoch().equals(epoch(markers))) {
      return null;
    }
    Map<String, Long> pending =
        pending(tags.stream().map(tag -> PartitionKeys.of(tag).pending()).toList());
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
    List<Intent> intents = intents(List.copyOf(intentKeys), pending);
    List<PendingAdjustment> adjustments =
        pendingAdjustments(
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
    Map<String, Numbers> skus = counters(List.copyOf(counterKeys), counterTags);
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
    for (String name : scan(GateKeyspace.MARKERS_PATTERN)) {
      GateKey key = GateKey.parse(name);
      if (key != null && key.kind() == Kind.MARKER) {
        names.add(name);
      }
    }
    return markers(ofType(names, DataType.HASH));
  }

  /**
   * The markers of these partitions, by tag, read by name without a SCAN; a partition without a
   * marker (or whose marker is no hash) is left out.
   */
  Map<String, Map<String, String>> markersOf(Collection<String> tags) {
    return markers(ofType(markerNames(tags), DataType.HASH));
  }

  private static List<String> markerNames(Collection<String> tags) {
    return tags.stream().map(tag -> PartitionKeys.of(tag).marker()).toList();
  }

  /** Each partition's marker, by the partition's tag; a partition without one is left out. */
  private Map<String, Map<String, String>> markers(List<String> keys) {
    Map<String, Map<String, String>> markers = new LinkedHashMap<>();
    for (List<String> batch : batches(keys)) {
      List<Object> hashes =
          pipelined(
              batch,
              connection -> {
                for (String key : batch) {
                  connection.hashCommands().hGetAll(bytes(key));
                }
                return null;
              });
      for (int i = 0; i < batch.size(); i++) {
        Map<String, String> marker = textMap(hashes.get(i));
        if (!marker.isEmpty()) {
          markers.put(GateKey.parse(batch.get(i)).tag(), marker);
        }
      }
    }
    return markers;
  }

  /**
   * Every partition's pending admissions: intent key name to how long it has been pending (ms), by
   * the clock of the Redis holding it, read before its entries (an entry admitted in between is
   * younger than zero: in flight).
   */
  private Map<String, Long> pending(List<String> keys) {
    Map<String, Long> pending = new HashMap<>();
    aged(keys).values().forEach(pending::putAll);
    return pending;
  }

  /**
   * The members of these sorted sets, each with how long ago (ms) its score was, by the clock of
   * the Redis holding it, read before the sets (a member added in between is younger than zero).
   */
  private Map<String, Map<String, Long>> aged(List<String> keys) {
    Map<String, Long> clocks = clocks(keys);
    Map<String, Map<String, Long>> aged = new LinkedHashMap<>();
    for (List<String> batch : batches(keys)) {
      List<Object> sets =
          pipelined(
              batch,
              connection -> {
                for (String key : batch) {
                  connection.zSetCommands().zRangeWithScores(bytes(key), 0, -1);
                }
                return null;
              });
      for (int i = 0; i < batch.size(); i++) {
        if (!(sets.get(i) instanceof Set<?> entries)) {
          continue;
        }
        long now = clocks.get(batch.get(i));
        Map<String, Long> members = aged.computeIfAbsent(batch.get(i), key -> new HashMap<>());
        for (Object entry : entries) {
          String member = null;
          Double score = null;
          if (entry instanceof TypedTuple<?> typed) {
            member = text(typed.getValue());
            score = typed.getScore();
          } else if (entry instanceof Tuple raw) {
            member = text(raw.getValue());
            score = raw.getScore();
          }
          if (member != null && score != null) {
            members.put(member, now - score.longValue());
          }
        }
      }
    }
    return aged;
  }

  /**
   * The adjustment takes these partitions list as pending, with the units each took there (from the
   * SKU's adjustments hash of the partition: {@code "<quantity> <units> <state>"}); a take found
   * recorded meanwhile, or whose entry is gone, is left out.
   */
  private List<PendingAdjustment> pendingAdjustments(List<String> keys) {
    record Listed(String hash, String skuId, String adjustmentId, long pendingFor) {}
    List<Listed> listed = new ArrayList<>();
    aged(keys)
        .forEach(
            (key, members) ->
                members.forEach(
                    (member, age) -> {
                      int space = member.indexOf(' ');
                      if (space > 0) {
                        String skuId = member.substring(0, space);
                        listed.add(
                            new Listed(
                                PartitionKeys.of(GateKey.parse(key).tag()).adjustments(skuId),
                                skuId,
                                member.substring(space + 1),
                                age));
                      }
                    }));
    List<PendingAdjustment> adjustments = new ArrayList<>();
    for (int from = 0; from < listed.size(); from += BATCH) {
      List<Listed> batch = listed.subList(from, Math.min(listed.size(), from + BATCH));
      List<Object> entries =
          pipelined(
              batch.stream().map(Listed::hash).toList(),
              connection -> {
                for (Listed take : batch) {
                  connection.hashCommands().hGet(bytes(take.hash()), bytes(take.adjustmentId()));
                }
                return null;
              });
      for (int i = 0; i < batch.size(); i++) {
        String entry = text(entries.get(i));
        String[] parts = entry == null ? new String[0] : entry.split(" ");
        if (parts.length == 3 && "PENDING".equals(parts[2])) {
          Listed take = batch.get(i);
          adjustments.add(
              new PendingAdjustment(
                  take.skuId(), take.adjustmentId(), Long.parseLong(parts[1]), take.pendingFor()));
        }
      }
    }
    return adjustments;
  }

  /**
   * The time (epoch ms) of the Redis that holds each of these keys: on a Redis Cluster, of the
   * master serving its slot (read once per master), else of the one Redis.
   */
  private Map<String, Long> clocks(List<String> keys) {
    Map<String, Long> clocks = new HashMap<>();
    if (keys.isEmpty()) {
      return clocks;
    }
    redis.execute(
        (RedisCallback<Void>)
            connection -> {
              if (connection instanceof RedisClusterConnection cluster) {
                Map<String, Long> byMaster = new HashMap<>();
                for (String key : keys) {
                  RedisClusterNode master = cluster.clusterGetNodeForKey(bytes(key));
                  clocks.put(
                      key,
                      byMaster.computeIfAbsent(master.asString(), name -> cluster.time(master)));
                }
              } else {
                Long now = connection.serverCommands().time();
                keys.forEach(key -> clocks.put(key, now));
              }
              return null;
            });
    return clocks;
  }

  /** The intent records, their parts merged per reservation. */
  private List<Intent> intents(List<String> keys, Map<String, Long> pending) {
    Map<String, List<Part>> parts = new TreeMap<>();
    for (List<String> batch : batches(keys)) {
      List<Object> fields =
          pipelined(
              batch,
              connection -> {
                for (String key : batch) {
                  connection.hashCommands().hMGet(bytes(key), STATE, LINES, CONFIRMED_LINES);
                }
                return null;
              });
      for (int i = 0; i < batch.size(); i++) {
        if (!(fields.get(i) instanceof List<?> values) || values.size() < 3) {
          continue;
        }
        String state = text(values.get(0));
        if (state == null) {
          // Gone between SCAN and HMGET (a withdrawn admission, a retention that ran out).
          continue;
        }
        String name = batch.get(i);
        GateKey key = GateKey.parse(name);
        String confirmed = text(values.get(2));
        parts
            .computeIfAbsent(key.id(), id -> new ArrayList<>())
            .add(
                new Part(
                    key.tag(),
                    state,
                    lines(text(values.get(1))),
                    pending.get(name),
                    confirmed == null ? null : lines(confirmed)));
      }
    }
    List<Intent> intents = new ArrayList<>(parts.size());
    parts.forEach(
        (reservationId, ofReservation) -> {
          Map<String, Long> lines = new LinkedHashMap<>();
          ofReservation.forEach(
              part -> part.lines().forEach((sku, n) -> lines.merge(sku, n, Long::sum)));
          intents.add(
              new Intent(reservationId, state(ofReservation), lines, List.copyOf(ofReservation)));
        });
    return intents;
  }

  /**
   * Every SKU's counters, summed over the partitions that hold some; {@code counterTags} is told
   * which partitions those are.
   */
  private Map<String, Numbers> counters(List<String> keys, Map<String, Set<String>> counterTags) {
    Map<String, Numbers> skus = new HashMap<>();
    for (List<String> batch : batches(keys)) {
      List<Object> hashes =
          pipelined(
              batch,
              connection -> {
                for (String key : batch) {
                  connection.hashCommands().hGetAll(bytes(key));
                }
                return null;
              });
      for (int i = 0; i < batch.size(); i++) {
        Map<String, String> hash = textMap(hashes.get(i));
        if (hash.isEmpty()) {
          continue;
        }
        long available;
        long reserved;
        long sold;
        try {
          available = number(hash.get("available"));
          reserved = number(hash.get("reserved"));
          sold = number(hash.get("sold"));
        } catch (NumberFormatException notCounters) {
          continue;
        }
        GateKey key = GateKey.parse(batch.get(i));
        skus.merge(
            key.id(),
            new Numbers(available + reserved + sold, available, reserved, sold),
            Numbers::plus);
        counterTags.computeIfAbsent(key.id(), sku -> new TreeSet<>()).add(key.tag());
      }
    }
    return skus;
  }

  /**
   * The keys of that type. Anything else under the gate's names is not the gate's (or not readable
   * as such) and is left out, rather than failing the pipeline that reads them.
   */
  private List<String> ofType(List<String> keys, DataType type) {
    List<String> matching = new ArrayList<>();
    for (List<String> batch : batches(keys)) {
      List<Object> types =
          redis.executePipelined(
              (RedisCallback<Object>)
                  connection -> {
                    for (String key : batch) {
                      connection.keyCommands().type(bytes(key));
                    }
                    return null;
                  });
      for (int i = 0; i < batch.size(); i++) {
        if (types.get(i) == type) {
          matching.add(batch.get(i));
        }
      }
    }
    return matching;
  }

  /**
   * The answers of pipelined commands, in order. Should a key have changed type since it was
   * checked, the whole batch reads as empty this time.
   */
  private List<Object> pipelined(List<String> batch, RedisCallback<Object> commands) {
    try {
      return redis.executePipelined(commands);
    } catch (RedisPipelineException changedMeanwhile) {
      return Collections.nCopies(batch.size(), null);
    }
  }

  /**
   * The names of the keys that match, each once: on a Redis Cluster from every master that serves
   * slots, else from the one Redis.
   */
  private List<String> scan(String pattern) {
    ScanOptions options = ScanOptions.scanOptions().match(pattern).count(1000).build();
    Set<String> keys = new LinkedHashSet<>();
    Boolean cluster =
        redis.execute(
            (RedisCallback<Boolean>)
                connection -> {
                  if (!(connection instanceof RedisClusterConnection nodes)) {
                    return false;
                  }
                  for (RedisClusterNode master : mastersServingEverySlot(nodes)) {
                    try (Cursor<byte[]> cursor = nodes.scan(master, options)) {
                      cursor.forEachRemaining(key -> keys.add(text(key)));
                    }
                  }
                  return true;
                });
    if (!Boolean.TRUE.equals(cluster)) {
      try (Cursor<String> cursor = redis.scan(options)) {
        cursor.forEachRemaining(keys::add);
      }
    }
    return new ArrayList<>(keys);
  }

  /**
   * The masters that serve slots, as the cluster's topology says. Fails when some slot has none:
   * the keys of that slot could not be read, and a report without them would be wrong.
   */
  private static List<RedisClusterNode> mastersServingEverySlot(RedisClusterConnection cluster) {
    List<RedisClusterNode> masters = new ArrayList<>();
    BitSet served = new BitSet(CLUSTER_SLOTS);
    for (RedisClusterNode node : cluster.clusterGetNodes()) {
      int[] slots = node.getSlotRange().getSlotsArray();
      if (node.isMaster() && slots.length > 0) {
        masters.add(node);
        for (int slot : slots) {
          served.set(slot);
        }
      }
    }
    if (served.cardinality() < CLUSTER_SLOTS) {
      throw new DataAccessResourceFailureException(
          "Redis Cluster: "
              + (CLUSTER_SLOTS - served.cardinality())
              + " of "
              + CLUSTER_SLOTS
              + " slots have no master; the gate cannot be read whole");
    }
    return masters;
  }

  private static List<List<String>> batches(List<String> keys) {
    List<List<String>> batches = new ArrayList<>();
    for (int from = 0; from < keys.size(); from += BATCH) {
      batches.add(keys.subList(from, Math.min(keys.size(), from + BATCH)));
    }
    return batches;
  }

  /** An intent's lines, {@code "sku qty sku qty ..."}, as SKU to quantity. */
  static Map<String, Long> lines(String lines) {
    Map<String, Long> bySku = new LinkedHashMap<>();
    if (lines == null || lines.isBlank()) {
      return bySku;
    }
    String[] parts = lines.trim().split(" ");
    for (int i = 0; i + 1 < parts.length; i += 2) {
      bySku.merge(parts[i], Long.parseLong(parts[i + 1]), Long::sum);
    }
    return bySku;
  }

  private static long number(String value) {
    return value == null ? 0 : Long.parseLong(value);
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

  /** A hash reply as text, empty when it is no hash (or was not read). */
  private static Map<String, String> textMap(Object reply) {
    Map<String, String> hash = new HashMap<>();
    if (reply instanceof Map<?, ?> raw) {
      raw.forEach((field, value) -> hash.put(text(field), text(value)));
    }
    return hash;
  }

  /** A reply as text: deserialized already, or raw bytes when the pipeline had a failure. */
  private static String text(Object value) {
    if (value instanceof byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
    return value == null ? null : value.toString();
  }

  private static byte[] bytes(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }
}
