package io.stockade.query.reconciliation;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;
import org.springframework.stereotype.Component;

/**
 * Reads the admission gate's state from Redis, read-only: the marker, the pending admissions, every
 * intent record and every SKU's counters. Not one atomic snapshot (the gate keeps working while it
 * is read): the reconciliation treats what changes between the reads as work in flight.
 */
@Component
class GateReader {

  /** One intent record; {@code pendingSince} is its admission time while it is pending. */
  record Intent(String reservationId, String state, Map<String, Long> lines, Long pendingSince) {}

  /**
   * The gate as read. {@code marker} is OPEN (an epoch), REBUILDING or ABSENT (Redis lost the gate,
   * or it was never built); its counters are compared whatever it says.
   */
  record Snapshot(
      String marker, Map<String, Numbers> skus, List<Intent> intents, int pendingAdmissions) {}

  private static final int BATCH = 500;
  private static final byte[] STATE = bytes("state");
  private static final byte[] LINES = bytes("lines");

  private final StringRedisTemplate redis;

  GateReader(StringRedisTemplate redis) {
    this.redis = redis;
  }

  /** Throws Spring's {@code DataAccessException} when Redis cannot be read. */
  Snapshot read() {
    Map<Object, Object> marker = redis.opsForHash().entries(GateKeyNames.MARKER);
    String markerState =
        marker.containsKey("epoch")
            ? "OPEN"
            : marker.containsKey("building") ? "REBUILDING" : "ABSENT";
    Map<String, Long> pending = new HashMap<>();
    Set<TypedTuple<String>> entries =
        redis.opsForZSet().rangeWithScores(GateKeyNames.PENDING, 0, -1);
    if (entries != null) {
      for (TypedTuple<String> entry : entries) {
        if (entry.getValue() != null && entry.getScore() != null) {
          pending.put(entry.getValue(), entry.getScore().longValue());
        }
      }
    }
    List<Intent> intents = intents(pending);
    Map<String, Numbers> skus = counters();
    return new Snapshot(markerState, skus, intents, pending.size());
  }

  private List<Intent> intents(Map<String, Long> pending) {
    List<String> keys = scan(GateKeyNames.INTENTS_PATTERN);
    keys.removeIf(key -> !GateKeyNames.isIntent(key));
    keys = onlyHashes(keys);
    List<Intent> intents = new ArrayList<>();
    for (int from = 0; from < keys.size(); from += BATCH) {
      List<String> batch = keys.subList(from, Math.min(keys.size(), from + BATCH));
      List<Object> fields =
          pipelined(
              batch,
              connection -> {
                for (String key : batch) {
                  connection.hashCommands().hMGet(bytes(key), STATE, LINES);
                }
                return null;
              });
      for (int i = 0; i < batch.size(); i++) {
        if (!(fields.get(i) instanceof List<?> values) || values.size() < 2) {
          continue;
        }
        String state = text(values.get(0));
        if (state == null) {
          // Gone between SCAN and HMGET (a withdrawn admission, a retention that ran out).
          continue;
        }
        String key = batch.get(i);
        intents.add(
            new Intent(
                GateKeyNames.reservationId(key),
                state,
                lines(text(values.get(1))),
                pending.get(key)));
      }
    }
    return intents;
  }

  private Map<String, Numbers> counters() {
    List<String> keys = scan(GateKeyNames.COUNTERS_PATTERN);
    keys.removeIf(key -> !GateKeyNames.isCounters(key));
    keys = onlyHashes(keys);
    Map<String, Numbers> skus = new HashMap<>();
    for (int from = 0; from < keys.size(); from += BATCH) {
      List<String> batch = keys.subList(from, Math.min(keys.size(), from + BATCH));
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
        if (!(hashes.get(i) instanceof Map<?, ?> raw) || raw.isEmpty()) {
          continue;
        }
        Map<String, String> hash = new HashMap<>();
        raw.forEach((field, value) -> hash.put(text(field), text(value)));
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
        skus.put(
            GateKeyNames.skuId(batch.get(i)),
            new Numbers(available + reserved + sold, available, reserved, sold));
      }
    }
    return skus;
  }

  /**
   * The keys that are hashes. Anything else under the gate's names is not the gate's (or not
   * readable as such) and is left out, rather than failing the pipeline that reads the hashes.
   */
  private List<String> onlyHashes(List<String> keys) {
    List<String> hashes = new ArrayList<>();
    for (int from = 0; from < keys.size(); from += BATCH) {
      List<String> batch = keys.subList(from, Math.min(keys.size(), from + BATCH));
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
        if (types.get(i) == DataType.HASH) {
          hashes.add(batch.get(i));
        }
      }
    }
    return hashes;
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

  private List<String> scan(String pattern) {
    List<String> keys = new ArrayList<>();
    try (Cursor<String> cursor =
        redis.scan(ScanOptions.scanOptions().match(pattern).count(1000).build())) {
      cursor.forEachRemaining(keys::add);
    }
    return keys;
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
