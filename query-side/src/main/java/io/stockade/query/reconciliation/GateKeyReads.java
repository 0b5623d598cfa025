package io.stockade.query.reconciliation;

import io.stockade.gatekeys.GateKey;
import io.stockade.gatekeys.PartitionKeys;
import io.stockade.query.reconciliation.GateReader.Intent;
import io.stockade.query.reconciliation.GateReader.Part;
import io.stockade.query.reconciliation.GateReader.PendingAdjustment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import org.springframework.data.redis.connection.zset.Tuple;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;

/**
 * Reads each kind of the gate's keys into what the reconciliation compares: the partitions'
 * markers, the pending admissions and adjustment takes (aged by the clock of the Redis holding
 * them), the intent records merged per reservation, and every SKU's counters summed over its
 * partitions.
 */
final class GateKeyReads {

  private static final byte[] STATE = GateRedis.bytes("state");
  private static final byte[] LINES = GateRedis.bytes("lines");
  private static final byte[] CONFIRMED_LINES = GateRedis.bytes("confirmed");

  private final GateRedis redis;

  GateKeyReads(GateRedis redis) {
    this.redis = redis;
  }

  /** Each partition's marker, by the partition's tag; a partition without one is left out. */
  Map<String, Map<String, String>> markers(List<String> keys) {
    Map<String, Map<String, String>> markers = new LinkedHashMap<>();
    eachHash(
        keys,
        (key, marker) -> {
          if (!marker.isEmpty()) {
            markers.put(GateKey.parse(key).tag(), marker);
          }
        });
    return markers;
  }

  /**
   * Every partition's pending admissions: intent key name to how long it has been pending (ms), by
   * the clock of the Redis holding it, read before its entries (an entry admitted in between is
   * younger than zero: in flight).
   */
  Map<String, Long> pending(List<String> keys) {
    Map<String, Long> pending = new HashMap<>();
    aged(keys).values().forEach(pending::putAll);
    return pending;
  }

  /**
   * The members of these sorted sets, each with how long ago (ms) its score was, by the clock of
   * the Redis holding it, read before the sets (a member added in between is younger than zero).
   */
  Map<String, Map<String, Long>> aged(List<String> keys) {
    Map<String, Long> clocks = redis.clocks(keys);
    Map<String, Map<String, Long>> aged = new LinkedHashMap<>();
    for (List<String> batch : GateRedis.batches(keys)) {
      List<Object> sets =
          redis.pipelined(
              batch,
              connection -> {
                for (String key : batch) {
                  connection.zSetCommands().zRangeWithScores(GateRedis.bytes(key), 0, -1);
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
            member = GateRedis.text(typed.getValue());
            score = typed.getScore();
          } else if (entry instanceof Tuple raw) {
            member = GateRedis.text(raw.getValue());
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
  List<PendingAdjustment> pendingAdjustments(List<String> keys) {
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
    for (int from = 0; from < listed.size(); from += GateRedis.BATCH) {
      List<Listed> batch = listed.subList(from, Math.min(listed.size(), from + GateRedis.BATCH));
      List<Object> entries =
          redis.pipelined(
              batch.stream().map(Listed::hash).toList(),
              connection -> {
                for (Listed take : batch) {
                  connection
                      .hashCommands()
                      .hGet(GateRedis.bytes(take.hash()), GateRedis.bytes(take.adjustmentId()));
                }
                return null;
              });
      for (int i = 0; i < batch.size(); i++) {
        String entry = GateRedis.text(entries.get(i));
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

  /** The intent records, their parts merged per reservation. */
  List<Intent> intents(List<String> keys, Map<String, Long> pending) {
    Map<String, List<Part>> parts = new TreeMap<>();
    for (List<String> batch : GateRedis.batches(keys)) {
      List<Object> fields =
          redis.pipelined(
              batch,
              connection -> {
                for (String key : batch) {
                  connection
                      .hashCommands()
                      .hMGet(GateRedis.bytes(key), STATE, LINES, CONFIRMED_LINES);
                }
                return null;
              });
      for (int i = 0; i < batch.size(); i++) {
        if (!(fields.get(i) instanceof List<?> values) || values.size() < 3) {
          continue;
        }
        String state = GateRedis.text(values.get(0));
        if (state == null) {
          // Gone between SCAN and HMGET (a withdrawn admission, a retention that ran out).
          continue;
        }
        String name = batch.get(i);
        GateKey key = GateKey.parse(name);
        String confirmed = GateRedis.text(values.get(2));
        parts
            .computeIfAbsent(key.id(), id -> new ArrayList<>())
            .add(
                new Part(
                    key.tag(),
                    state,
                    lines(GateRedis.text(values.get(1))),
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
              new Intent(
                  reservationId,
                  GateReader.state(ofReservation),
                  lines,
                  List.copyOf(ofReservation)));
        });
    return intents;
  }

  /**
   * Every SKU's counters, summed over the partitions that hold some; {@code counterTags} is told
   * which partitions those are.
   */
  Map<String, Numbers> counters(List<String> keys, Map<String, Set<String>> counterTags) {
    Map<String, Numbers> skus = new HashMap<>();
    eachHash(
        keys,
        (name, hash) -> {
          if (hash.isEmpty()) {
            return;
          }
          long available;
          long reserved;
          long sold;
          try {
            available = number(hash.get("available"));
            reserved = number(hash.get("reserved"));
            sold = number(hash.get("sold"));
          } catch (NumberFormatException notCounters) {
            return;
          }
          GateKey key = GateKey.parse(name);
          skus.merge(
              key.id(),
              new Numbers(available + reserved + sold, available, reserved, sold),
              Numbers::plus);
          counterTags.computeIfAbsent(key.id(), sku -> new TreeSet<>()).add(key.tag());
        });
    return skus;
  }

  /**
   * Each of these hashes (HGETALL, pipelined in batches), in the keys' order, with its key; a hash
   * that is gone reads as empty.
   */
  private void eachHash(List<String> keys, BiConsumer<String, Map<String, String>> each) {
    for (List<String> batch : GateRedis.batches(keys)) {
      List<Object> hashes =
          redis.pipelined(
              batch,
              connection -> {
                for (String key : batch) {
                  connection.hashCommands().hGetAll(GateRedis.bytes(key));
                }
                return null;
              });
      for (int i = 0; i < batch.size(); i++) {
        each.accept(batch.get(i), GateRedis.textMap(hashes.get(i)));
      }
    }
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

  static long number(String value) {
    return value == null ? 0 : Long.parseLong(value);
  }
}
