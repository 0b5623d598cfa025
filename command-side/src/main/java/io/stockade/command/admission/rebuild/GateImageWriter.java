package io.stockade.command.admission.rebuild;

import io.lettuce.core.cluster.SlotHash;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.DrawRefusals;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateLayout.Partition;
import io.stockade.command.admission.redis.GateProperties;
import io.stockade.command.admission.redis.GateServers;
import io.stockade.gatekeys.GateKeyspace;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * Writes a rebuild's image of the gate to Redis through the partitions' {@link RestoreWriter}s:
 * clears the old keys, then writes the SKUs' counters over their buckets, the reservations' intents
 * and the draws' refusals, where the layout places them.
 */
@Component
class GateImageWriter {

  private final GateLayout layout;
  private final Duration retention;
  private final ObjectProvider<DrawRefusals> drawRefusals;

  GateImageWriter(
      GateLayout layout, GateProperties properties, ObjectProvider<DrawRefusals> drawRefusals) {
    this.layout = layout;
    this.retention = properties.intentRetention();
    this.drawRefusals = drawRefusals;
  }

  /** What clearing the old keys found: how many it cleared. */
  record Cleared(int stale) {}

  /**
   * Clears every key of the gate but the partitions' markers, decision streams and gaps (and the
   * rate limits' under the same prefix). A key in a partition's slot is cleared by that partition's
   * script, so that a rebuild taken over cannot clear what the later one wrote. Keys in no
   * partition's slot (an earlier layout's) are no later rebuild's to write.
   */
  Cleared clear(StringRedisTemplate redis, List<RestoreWriter> writers) {
    int stale = 0;
    for (String key : GateServers.keys(redis, GateKeyspace.PATTERN)) {
      Partition partition = layout.partitionOfSlot(SlotHash.getSlot(key));
      // The decision streams and gaps are the decisions' only copy until they are moved.
      if (key.startsWith(GateKeyspace.RATE_LIMITS_PREFIX)
          || (partition != null
              && (partition.marker().equals(key)
                  || partition.decisions().equals(key)
                  || partition.dropped().equals(key)))) {
        continue;
      }
      if (partition == null) {
        redis.unlink(key);
      } else {
        writers.get(partition.index()).add("UNLINK", key);
      }
      stale++;
    }
    writers.forEach(RestoreWriter::flush);
    return new Cleared(stale);
  }

  /**
   * Writes the image: its SKUs' counters, the intents to keep ({@code intents}) and the draws'
   * refusals, each in the partitions {@code placements} tells. Answers how many refusals of draws
   * it wrote.
   */
  int writeImage(
      List<RestoreWriter> writers,
      GateImage image,
      Map<String, GateImage.Intent> intents,
      Function<String, List<Partition>> placements,
      Instant now) {
    Map<String, long[]> reservedByBucket = new HashMap<>();
    intents.forEach(
        (reservationId, intent) -> {
          if ("RESERVED".equals(intent.state)) {
            for (ReservationLine line : intent.lines) {
              List<Partition> placement = placements.apply(line.skuId());
              reservedByBucket
                      .computeIfAbsent(line.skuId(), sku -> new long[placement.size()])[
                      GateLayout.bucketOf(intent.userId, placement.size())] +=
                  line.quantity();
            }
          }
        });
    image.skus.forEach(
        (skuId, sku) ->
            write(writers, skuId, sku, placements.apply(skuId), reservedByBucket.get(skuId)));
    intents.forEach(
        (reservationId, intent) -> write(writers, placements, reservationId, intent, now));
    return writeDrawRefusals(writers, placements, now);
  }

  /**
   * Where the buckets of each SKU of the record lie, spread over the servers: worked out once per
   * SKU (a rebuild asks for every line of every reservation).
   */
  Function<String, List<Partition>> placements(GateImage image, ToIntFunction<Partition> servers) {
    Map<String, List<Partition>> placed = new HashMap<>();
    return skuId ->
        placed.computeIfAbsent(
            skuId,
            id -> {
              GateImage.Sku sku = image.skus.get(id);
              return layout.buckets(id, sku == null ? 1 : sku.buckets, servers);
            });
  }

  /**
   * Writes a SKU's counters, over its buckets when it has several: the available units shared out
   * evenly, the reserved ones (and the holders) in the bucket of the user who holds them, the sold
   * ones and the replenishments in the first bucket.
   */
  private static void write(
      List<RestoreWriter> writers,
      String skuId,
      GateImage.Sku sku,
      List<Partition> placement,
      long[] reservedByBucket) {
    int count = placement.size();
    List<Map<String, Long>> holders = new ArrayList<>();
    for (int bucket = 0; bucket < count; bucket++) {
      holders.add(new LinkedHashMap<>());
    }
    sku.holders.forEach(
        (user, units) -> holders.get(GateLayout.bucketOf(user, count)).put(user, units));
    for (int bucket = 0; bucket < count; bucket++) {
      Partition partition = placement.get(bucket);
      RestoreWriter writer = writers.get(partition.index());
      long reserved =
          count == 1 ? sku.reserved : reservedByBucket == null ? 0 : reservedByBucket[bucket];
      List<String> counters = new ArrayList<>(26);
      Collections.addAll(
          counters,
          "available",
          String.valueOf(GateLayout.share(sku.available, bucket, count)),
          "reserved",
          String.valueOf(reserved),
          "sold",
          String.valueOf(bucket == 0 ? sku.sold : 0),
          "limit",
          String.valueOf(sku.limit),
          "limitVersion",
          String.valueOf(sku.limitVersion),
          "buckets",
          GateLayout.recorded(placement));
      // The sale's parts in every bucket, with the versions of the events that set them, as
      // sale.lua writes them: a later write of an older event is stale.
      if (sku.scheduleVersion >= 0) {
        Collections.addAll(counters, "scheduleVersion", String.valueOf(sku.scheduleVersion));
        if (sku.opensAt != null) {
          Collections.addAll(counters, "opensAt", String.valueOf(sku.opensAt));
        }
        if (sku.closesAt != null) {
          Collections.addAll(counters, "closesAt", String.valueOf(sku.closesAt));
        }
        if (sku.prequeue > 0) {
          Collections.addAll(counters, "prequeue", String.valueOf(sku.prequeue));
        }
      }
      if (sku.drawnVersion >= 0) {
        Collections.addAll(
            counters,
            "drawn",
            String.valueOf(sku.drawn),
            "drawnVersion",
            String.valueOf(sku.drawnVersion));
      }
      if (sku.pauseVersion >= 0) {
        Collections.addAll(
            counters,
            "paused",
            sku.paused ? "1" : "0",
            "pauseVersion",
            String.valueOf(sku.pauseVersion));
      }
      writer.add("HSET", partition.counters(skuId), counters.toArray(String[]::new));
      writer.addPairs("HSET", partition.holders(skuId), holders.get(bucket));
      if (bucket == 0) {
        writer.addPairs("HSET", partition.replenishments(skuId), sku.replenishments);
        // Recorded adjustments, each whole in the first bucket, as adjust.lua records them: a
        // repeat of one finds it there and takes nothing again.
        Map<String, String> adjustments = new LinkedHashMap<>();
        sku.adjustments.forEach(
            (id, quantity) ->
                adjustments.put(id, quantity + " " + Math.abs(quantity) + " RECORDED"));
        writer.addPairs("HSET", partition.adjustments(skuId), adjustments);
      }
    }
  }

  /**
   * Writes a reservation's intent: one part in each partition its lines lie in (a line of a SKU
   * split into buckets, in its user's bucket).
   */
  private void write(
      List<RestoreWriter> writers,
      Function<String, List<Partition>> placements,
      String reservationId,
      GateImage.Intent intent,
      Instant now) {
    int[] partitions = new int[intent.lines.size()];
    boolean onePartition = true;
    for (int i = 0; i < partitions.length; i++) {
      List<Partition> placement = placements.apply(intent.lines.get(i).skuId());
      partitions[i] = placement.get(GateLayout.bucketOf(intent.userId, placement.size())).index();
      onePartition &= partitions[i] == partitions[0];
    }
    if (onePartition) {
      // The common case: every line in one partition, one part.
      if (partitions.length > 0) {
        writePart(writers.get(partitions[0]), reservationId, intent, intent.lines, now);
      }
      return;
    }
    Map<Integer, List<ReservationLine>> parts = new LinkedHashMap<>();
    for (int i = 0; i < partitions.length; i++) {
      parts.computeIfAbsent(partitions[i], index -> new ArrayList<>()).add(intent.lines.get(i));
    }
    parts.forEach(
        (index, lines) -> writePart(writers.get(index), reservationId, intent, lines, now));
  }

  /**
   * Keeps the draws' refusals the record holds (within the intents' retention) as reserve.lua kept
   * them: an intent record of state REFUSED in the partition of the reservation's first line, which
   * answers a repeat with the refusal. Answers how many it wrote.
   */
  private int writeDrawRefusals(
      List<RestoreWriter> writers, Function<String, List<Partition>> placements, Instant now) {
    DrawRefusals refusals = drawRefusals.getIfAvailable();
    if (refusals == null) {
      return 0;
    }
    List<DrawRefusals.Refusal> kept = refusals.refusalsSince(now.minus(retention));
    for (DrawRefusals.Refusal refusal : kept) {
      List<Partition> placement = placements.apply(refusal.lines().get(0).skuId());
      RestoreWriter writer =
          writers.get(
              placement.get(GateLayout.bucketOf(refusal.userId(), placement.size())).index());
      String[] reply = refusal.reply().split(" ");
      writer.add(
          "HSET",
          writer.partition().intent(refusal.reservationId()),
          "state",
          "REFUSED",
          "user",
          refusal.userId(),
          "fingerprint",
          refusal.fingerprint(),
          "sequence",
          reply[reply.length - 1],
          "epoch",
          "-1",
          "refusal",
          refusal.reply());
    }
    return kept.size();
  }

  /** One part of an intent: its fields in one HSET, and its expiry once it has ended. */
  private void writePart(
      RestoreWriter writer,
      String reservationId,
      GateImage.Intent intent,
      List<ReservationLine> lines,
      Instant now) {
    String key = writer.partition().intent(reservationId);
    String confirmed = intent.confirmedOf(lines);
    String[] fields =
        new String[16 + (intent.reason == null ? 0 : 2) + (confirmed == null ? 0 : 2)];
    int f = 0;
    fields[f++] = "state";
    fields[f++] = intent.state;
    fields[f++] = "user";
    fields[f++] = intent.userId;
    fields[f++] = "lines";
    fields[f++] = GateImage.recordedLines(lines);
    fields[f++] = "fingerprint";
    fields[f++] = intent.fingerprint();
    fields[f++] = "sequence";
    fields[f++] = String.valueOf(intent.sequence);
    fields[f++] = "epoch";
    fields[f++] = String.valueOf(intent.epoch);
    fields[f++] = "admittedAt";
    fields[f++] = String.valueOf(intent.admittedAt.toEpochMilli());
    fields[f++] = "expiresAt";
    fields[f++] = String.valueOf(intent.expiresAt.toEpochMilli());
    if (intent.reason != null) {
      fields[f++] = "reason";
      fields[f++] = intent.reason;
    }
    if (confirmed != null) {
      fields[f++] = "confirmed";
      fields[f] = confirmed;
    }
    writer.add("HSET", key, fields);
    if (intent.endedAt != null) {
      long left = Duration.between(now, intent.endedAt.plus(retention)).toMillis();
      writer.add("PEXPIRE", key, String.valueOf(Math.max(left, 1)));
    }
  }
}
