package io.stockade.command.admission;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * Rebuilds the gate's keys in Redis from the event store (restore.lua): closes the gate for the new
 * epoch, clears every key of the gate (not the rate limits' under the same prefix), writes what the
 * record says, and opens the gate in the new epoch. Each step is one script call that does nothing
 * once another rebuild has taken over.
 */
@Component
class GateRebuild {

  private static final Logger log = LoggerFactory.getLogger(GateRebuild.class);
  private static final int BATCH = 500;

  private static final RedisScript<List<Object>> RESTORE = RedisAdmissionGate.script("restore");

  private final EventStorageEngine events;
  private final Duration retention;
  private final Clock clock;

  GateRebuild(EventStorageEngine events, GateProperties properties, Clock clock) {
    this.events = events;
    this.retention = properties.intentRetention();
    this.clock = clock;
  }

  /** Thrown when another instance's rebuild took over: this one stops, having written nothing. */
  static final class TakenOverException extends RuntimeException {

    TakenOverException(long epoch) {
      super("The rebuild of gate epoch " + epoch + " was taken over by a later one");
    }
  }

  /**
   * Rebuilds the gate in {@code redis} as epoch {@code epoch} of the Redis server {@code runId}.
   */
  void rebuild(StringRedisTemplate redis, long epoch, String runId) {
    long started = System.nanoTime();
    Writer writer = new Writer(redis, epoch);
    writer.call("BEGIN", List.of(), List.of());

    List<String> stale = new ArrayList<>();
    try (Cursor<String> keys =
        redis.scan(ScanOptions.scanOptions().match(GateKeys.PATTERN).count(1000).build())) {
      keys.forEachRemaining(
          key -> {
            if (!GateKeys.MARKER.equals(key) && !key.startsWith(GateKeys.NOT_GATE_PREFIX)) {
              stale.add(key);
            }
          });
    }
    for (String key : stale) {
      writer.add("UNLINK", key);
    }
    writer.flush();

    GateImage image = new GateImage();
    try (Stream<? extends TrackedEventMessage<?>> stream = events.readEvents(null, false)) {
      stream.forEach(message -> image.apply(message.getPayload()));
    }
    Instant now = clock.instant();
    image.skus.forEach((skuId, sku) -> write(writer, skuId, sku));
    Map<String, GateImage.Intent> intents = image.intentsToKeep(now, retention);
    intents.forEach((reservationId, intent) -> write(writer, reservationId, intent, now));
    writer.add("SET", GateKeys.SEQUENCE, String.valueOf(image.sequence));
    writer.open(runId);
    log.warn(
        "Gate rebuilt as epoch {} from {} events: {} SKUs, {} reservations, {} stale keys"
            + " cleared, in {} ms",
        epoch,
        image.events,
        image.skus.size(),
        intents.size(),
        stale.size(),
        Duration.ofNanos(System.nanoTime() - started).toMillis());
  }

  private static void write(Writer writer, String skuId, GateImage.Sku sku) {
    writer.add(
        "HSET",
        GateKeys.counters(skuId),
        "available",
        String.valueOf(sku.available),
        "reserved",
        String.valueOf(sku.reserved),
        "sold",
        String.valueOf(sku.sold),
        "limit",
        String.valueOf(sku.limit));
    if (!sku.holders.isEmpty()) {
      writer.add("HSET", GateKeys.holders(skuId), flatten(sku.holders));
    }
    if (!sku.replenishments.isEmpty()) {
      writer.add("HSET", GateKeys.replenishments(skuId), flatten(sku.replenishments));
    }
  }

  private void write(Writer writer, String reservationId, GateImage.Intent intent, Instant now) {
    String key = GateKeys.intent(reservationId);
    List<String> fields =
        new ArrayList<>(
            List.of(
                "state",
                intent.state,
                "user",
                intent.userId,
                "lines",
                intent.recordedLines(),
                "fingerprint",
                intent.fingerprint,
                "sequence",
                String.valueOf(intent.sequence),
                "admittedAt",
                String.valueOf(intent.admittedAt.toEpochMilli()),
                "expiresAt",
                String.valueOf(intent.expiresAt.toEpochMilli())));
    if (intent.reason != null) {
      fields.add("reason");
      fields.add(intent.reason);
    }
    writer.add("HSET", key, fields.toArray(String[]::new));
    if (intent.endedAt != null) {
      long left = Duration.between(now, intent.endedAt.plus(retention)).toMillis();
      writer.add("PEXPIRE", key, String.valueOf(Math.max(left, 1)));
    }
  }

  private static String[] flatten(Map<String, Long> values) {
    List<String> flat = new ArrayList<>();
    values.forEach(
        (field, value) -> {
          flat.add(field);
          flat.add(String.valueOf(value));
        });
    return flat.toArray(String[]::new);
  }

  /** Batches operations into restore.lua calls. */
  private static final class Writer {

    private final StringRedisTemplate redis;
    private final long epoch;
    private final List<String> keys = new ArrayList<>();
    private final List<String> operations = new ArrayList<>();

    Writer(StringRedisTemplate redis, long epoch) {
      this.redis = redis;
      this.epoch = epoch;
    }

    void add(String name, String key, String... args) {
      keys.add(key);
      operations.add(name);
      operations.add(String.valueOf(keys.size() + 1));
      operations.add(String.valueOf(args.length));
      operations.addAll(List.of(args));
      if (keys.size() >= BATCH) {
        flush();
      }
    }

    void flush() {
      if (!keys.isEmpty()) {
        call("WRITE", keys, operations);
      }
    }

    void open(String runId) {
      List<String> args = new ArrayList<>();
      args.add(runId);
      args.addAll(operations);
      call("OPEN", keys, args);
    }

    void call(String mode, List<String> batchKeys, List<String> args) {
      List<String> allKeys = new ArrayList<>(batchKeys.size() + 1);
      allKeys.add(GateKeys.MARKER);
      allKeys.addAll(batchKeys);
      Object[] allArgs = new Object[args.size() + 2];
      allArgs[0] = String.valueOf(epoch);
      allArgs[1] = mode;
      for (int i = 0; i < args.size(); i++) {
        allArgs[i + 2] = args.get(i);
      }
      List<Object> reply = redis.execute(RESTORE, allKeys, allArgs);
      keys.clear();
      operations.clear();
      if (((Number) reply.get(0)).longValue() != 1) {
        throw new TakenOverException(epoch);
      }
    }
  }
}
