package io.stockade.command.admission.rebuild;

import io.lettuce.core.cluster.SlotHash;
import io.stockade.api.StreamFold;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.DrawRefusals;
import io.stockade.command.admission.decisions.DecisionDrain;
import io.stockade.command.admission.decisions.DecisionLogRestores;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateLayout.Partition;
import io.stockade.command.admission.redis.GateProperties;
import io.stockade.command.admission.redis.GateServers;
import io.stockade.gatekeys.GateKeyspace;
import io.stockade.platform.concurrent.DaemonThreads;
import io.stockade.platform.eventstore.EventTableFold;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Rebuilds the gate's keys in Redis from the event store (restore.lua, per partition): closes every
 * partition for the new epoch, clears every key of the gate (not the rate limits' under the same
 * prefix), writes what the record says, and opens every partition in the new epoch. Each step is
 * one script call that does nothing once another rebuild has taken over.
 */
@Component
public class GateRebuild {

  private static final Logger log = LoggerFactory.getLogger(GateRebuild.class);

  /** How often the fold hears the lease, in events. */
  private static final int EVENTS_BETWEEN_RENEWALS = 1000;

  private final EventTableFold events;
  private final GateCheckpoints checkpoints;
  private final GateLayout layout;
  private final Duration retention;
  private final Clock clock;
  private final ObjectProvider<DecisionDrain> decisions;
  private final ObjectProvider<DecisionLogRestores> restores;
  private final ObjectProvider<DrawRefusals> drawRefusals;
  private final StringRedisTemplate serviceRedis;

  GateRebuild(
      EventTableFold events,
      GateCheckpoints checkpoints,
      GateLayout layout,
      GateProperties properties,
      Clock clock,
      ObjectProvider<DecisionDrain> decisions,
      ObjectProvider<DecisionLogRestores> restores,
      StringRedisTemplate serviceRedis,
      ObjectProvider<DrawRefusals> drawRefusals) {
    this.drawRefusals = drawRefusals;
    this.events = events;
    this.checkpoints = checkpoints;
    this.layout = layout;
    this.retention = properties.intentRetention();
    this.clock = clock;
    this.decisions = decisions;
    this.restores = restores;
    this.serviceRedis = serviceRedis;
  }

  /**
   * How long after a rebuild's gate opens its restore of the decision log may take before any
   * instance takes it up again (the rebuilding one stopped, or its restore failed).
   */
  public static final Duration RESTORE_DUE = Duration.ofMinutes(2);

  /**
   * A rebuild under way on this instance: its phase (CLEARING: closing every partition; READING the
   * event store, while the old keys are cleared; WRITING the gate), and how far it has read: up to
   * global index {@code position} of the {@code head} the store had when it began (gaps make the
   * percentage an underestimate).
   */
  record Progress(long epoch, String phase, long position, long head) {

    int percent() {
      return head <= 0 ? 100 : (int) Math.min(100, position * 100 / head);
    }
  }

  private volatile Progress progress;

  /** The checkpoint the last fold on this instance went on from; -1 for the whole record. */
  private volatile long lastCheckpoint = -1;

  /** The id of the checkpoint the last fold on this instance went on from; -1 for none. */
  long lastCheckpoint() {
    return lastCheckpoint;
  }

  /** The rebuild under way on this instance, if any. */
  Optional<Progress> progress() {
    return Optional.ofNullable(progress);
  }

  /**
   * Rebuilds the gate in {@code redis} as epoch {@code epoch} of the Redis server(s) {@code runId},
   * renewing {@code lease} as it goes.
   *
   * @return what is left to do once the gate is open: the decision log's restore of the admitted
   *     decisions Redis lost (recorded as owed before the gate opened), or nothing
   */
  Runnable rebuild(StringRedisTemplate redis, long epoch, String runId, RebuildLease lease) {
    try (RestoreWriter.Calls calls = new RestoreWriter.Calls(redis)) {
      return rebuildAndTell(redis, epoch, runId, lease, calls);
    } finally {
      progress = null;
    }
  }

  private Runnable rebuildAndTell(
      StringRedisTemplate redis,
      long epoch,
      String runId,
      RebuildLease lease,
      RestoreWriter.Calls calls) {
    long started = System.nanoTime();
    progress = new Progress(epoch, "CLEARING", 0, 0);
    List<RestoreWriter> writers = new ArrayList<>();
    for (Partition partition : layout.partitions()) {
      RestoreWriter writer = new RestoreWriter(redis, partition, epoch, lease, calls);
      writer.call("BEGIN", List.of(), List.of());
      writers.add(writer);
    }
    // Read before the clearing: every partition is closed now, so no script takes another number.
    long given = highestGiven(redis);

    // The old keys are cleared while the event store is read: the one keeps Redis busy, the other
    // the database, and the writes wait for both.
    Instant now = clock.instant();
    long head = events.head();
    FutureTask<Cleared> clearing = new FutureTask<>(() -> clear(redis, writers));
    Thread clearer = DaemonThreads.named("gate-rebuild-clearing").newThread(clearing);
    clearer.start();
    GateImage image;
    Cleared cleared;
    try {
      progress = new Progress(epoch, "READING", 0, head);
      image =
          fold(
              now,
              head,
              "Gate rebuild of epoch " + epoch,
              position -> {
                lease.renew();
                progress = new Progress(epoch, "READING", position, head);
              });
      cleared = finished(clearing);
    } finally {
      clearing.cancel(true);
      joinUninterruptibly(clearer);
    }
    long folded = System.nanoTime();
    progress = new Progress(epoch, "WRITING", head, head);
    Map<String, GateImage.Intent> intents = image.intentsToKeep(now, retention);
    Function<String, List<Partition>> placements = placements(image, GateServers.servers(redis));
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
    int drawRefused = writeDrawRefusals(writers, placements, now);
    // Every partition's sequence goes on above every sequence in the record, in the decision log
    // and in the decision streams; and above the batch of decisions a drain may still be moving
    // from a stream Redis lost.
    String counter = String.valueOf(highestSequence(redis, image, given) / GateLayout.STRIDE + 1);
    for (RestoreWriter writer : writers) {
      writer.add("SET", writer.partition().sequence(), counter);
    }
    // Owed before the gate opens: once it is open the drain moves the new streams' entries, and if
    // this instance stops before it has restored them, another one takes the restore up. Owed for
    // every partition: a stream that survived may have come back older (a snapshot, a lagging
    // replica), without its newest entries, and nothing says which.
    DecisionLogRestores decisionLog = restores.getIfAvailable();
    Runnable afterOpen = () -> {};
    if (decisionLog != null) {
      Set<String> every = new HashSet<>();
      layout.partitions().forEach(partition -> every.add(partition.tag()));
      DecisionLogRestores.Restore restore = decisionLog.restoreOwed(epoch, every, RESTORE_DUE);
      List<DecisionLogRestores.Admitted> owed = admitted(image, placements, every);
      afterOpen = () -> restoreUntilDone(decisionLog, restore, owed, Thread::sleep);
    }
    for (RestoreWriter writer : writers) {
      writer.open(runId, layout);
    }
    log.warn(
        "Gate rebuilt as epoch {} from {} events ({}) in {} partitions: {} SKUs, {} reservations,"
            + " {} refusals of draws, {} stale keys cleared, in {} ms ({} ms to clear and fold)",
        epoch,
        image.events,
        lastCheckpoint < 0
            ? "the whole record"
            : "checkpoint " + lastCheckpoint + " and the events after it",
        writers.size(),
        image.skus.size(),
        intents.size(),
        drawRefused,
        cleared.stale(),
        Duration.ofNanos(System.nanoTime() - started).toMillis(),
        Duration.ofNanos(folded - started).toMillis());
    return afterOpen;
  }

  /** What clearing the old keys found: how many it cleared. */
  private record Cleared(int stale) {}

  /**
   * Clears every key of the gate but the partitions' markers, decision streams and gaps (and the
   * rate limits' under the same prefix). A key in a partition's slot is cleared by that partition's
   * script, so that a rebuild taken over cannot clear what the later one wrote. Keys in no
   * partition's slot (an earlier layout's) are no later rebuild's to write.
   */
  private Cleared clear(StringRedisTemplate redis, List<RestoreWriter> writers) {
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

  /** The clearing's outcome, once it has ended; its failure thrown as it was. */
  private static Cleared finished(FutureTask<Cleared> clearing) {
    try {
      return clearing.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while the gate's old keys were cleared", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Waits until {@code thread} has ended, keeping the caller's interruption for later. */
  private static void joinUninterruptibly(Thread thread) {
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Folds the event store into the gate's image as of {@code now}: from the newest valid checkpoint
   * ({@link GateCheckpoints}) on, or from the start without one; telling {@code progress} the
   * global index reached every {@value #EVENTS_BETWEEN_RENEWALS} events and logging each tenth of
   * {@code head} under {@code what}.
   */
  private GateImage fold(Instant now, long head, String what, LongConsumer progress) {
    GateCheckpoints.Start start = checkpoints.start(now, retention, head);
    GateImage image = start.image();
    long after = start.after();
    lastCheckpoint = start.checkpoint();
    if (start.checkpoint() >= 0) {
      log.info(
          "{}: from checkpoint {} at global index {} ({} events), then the events after it",
          what,
          start.checkpoint(),
          after,
          image.events);
    }
    long[] tenth = {after + (head - after) / 10};
    long step = Math.max(1, (head - after) / 10);
    // The event table read directly (a plain scan's pace, not Axon's readEvents'); events that
    // commit while it reads are read if they come after what it has read, as with readEvents.
    events.foldPayloads(
        StreamFold.EVENTS,
        after,
        Long.MAX_VALUE,
        event -> {
          image.apply(event.payload());
          if (image.events % EVENTS_BETWEEN_RENEWALS == 0) {
            progress.accept(event.globalIndex());
          }
          if (head - after >= 10 && event.globalIndex() >= tenth[0] && event.globalIndex() < head) {
            log.info(
                "{}: event store read up to global index {} of {} ({}%)",
                what, event.globalIndex(), head, Math.round(event.globalIndex() * 100.0 / head));
            tenth[0] = event.globalIndex() + step;
          }
        });
    return image;
  }

  /**
   * Takes up the restores of the decision log that rebuilds owe past their due time (the instance
   * that rebuilt stopped, or its restore failed): folds the event store again and restores them.
   */
  @Scheduled(
      fixedDelayString = "${stockade.decisions.restore-check-interval:1m}",
      initialDelayString = "${stockade.decisions.restore-check-interval:1m}")
  public void takeUpOwedRestores() {
    DecisionLogRestores decisionLog = restores.getIfAvailable();
    if (decisionLog == null) {
      return;
    }
    try {
      List<DecisionLogRestores.Restore> owed = decisionLog.takeOverdueRestores(RESTORE_DUE);
      if (owed.isEmpty()) {
        return;
      }
      long head = events.head();
      GateImage image = fold(clock.instant(), head, "Owed restore of the decision log", i -> {});
      Function<String, List<Partition>> placements =
          placements(image, GateServers.servers(serviceRedis));
      for (DecisionLogRestores.Restore restore : owed) {
        log.warn(
            "Restore of the decision log owed by the rebuild of gate epoch {} taken up",
            restore.epoch());
        restore(decisionLog, restore, admitted(image, placements, restore.since().keySet()));
      }
    } catch (DataAccessException e) {
      log.warn("Owed restores of the decision log not taken up now; the next check goes on", e);
    }
  }

  /**
   * The admitted decisions of the partitions {@code tags} as the image's intents tell them: from
   * their StockReserved, for each line in the bucket of its user.
   */
  private List<DecisionLogRestores.Admitted> admitted(
      GateImage image, Function<String, List<Partition>> placements, Set<String> tags) {
    List<DecisionLogRestores.Admitted> admitted = new ArrayList<>();
    for (GateImage.Intent intent : image.intents.values()) {
      for (ReservationLine line : intent.lines) {
        List<Partition> placement = placements.apply(line.skuId());
        Partition partition = placement.get(GateLayout.bucketOf(intent.userId, placement.size()));
        if (tags.contains(partition.tag())) {
          admitted.add(
              new DecisionLogRestores.Admitted(
                  partition,
                  intent.reservationId,
                  intent.userId,
                  line,
                  intent.sequence,
                  intent.epoch,
                  intent.admittedAt));
        }
      }
    }
    return admitted;
  }

  /** Waits {@code millis} milliseconds: {@code Thread::sleep}, or a test's. */
  @FunctionalInterface
  public interface Pause {
    void pause(long millis) throws InterruptedException;
  }

  /**
   * The first pause before a failed restore is tried again on the instance that rebuilt; each next
   * one twice the last, at most {@link #RESTORE_RETRY_MAX}.
   */
  static final Duration RESTORE_RETRY = Duration.ofSeconds(1);

  static final Duration RESTORE_RETRY_MAX = Duration.ofSeconds(30);

  /**
   * Gives the decision log back the admitted decisions of {@code restore}, trying again while it
   * fails for as long as half of {@link #RESTORE_DUE}: right after a Redis restart the service's
   * own connection may still be reconnecting (Lettuce's back-off) when the rebuilt gate opens on
   * its new one, and the database may blink; such a failure must not leave the log short until the
   * restore is overdue. Past that, any instance's take-up does it.
   *
   * @return whether it was done
   */
  public static boolean restoreUntilDone(
      DecisionLogRestores decisionLog,
      DecisionLogRestores.Restore restore,
      List<DecisionLogRestores.Admitted> admitted,
      Pause pause) {
    long tries = RESTORE_DUE.dividedBy(2).toMillis();
    long waited = 0;
    long next = RESTORE_RETRY.toMillis();
    while (!restore(decisionLog, restore, admitted)) {
      if (waited + next > tries) {
        return false;
      }
      try {
        pause.pause(next);
      } catch (InterruptedException e) {
        // The service is stopping: the restore stays owed for another instance.
        Thread.currentThread().interrupt();
        return false;
      }
      waited += next;
      next = Math.min(next * 2, RESTORE_RETRY_MAX.toMillis());
    }
    return true;
  }

  /**
   * Gives the decision log back the admitted decisions of {@code restore}, then drops it.
   *
   * @return whether it was done; a failure leaves it owed
   */
  private static boolean restore(
      DecisionLogRestores decisionLog,
      DecisionLogRestores.Restore restore,
      List<DecisionLogRestores.Admitted> admitted) {
    try {
      long started = System.nanoTime();
      int restored = decisionLog.restoreAdmitted(restore, admitted);
      decisionLog.restored(restore);
      log.warn(
          "Gate rebuild of epoch {}: {} admitted decisions Redis lost restored to the decision"
              + " log from their events, in {} ms",
          restore.epoch(),
          restored,
          Duration.ofNanos(System.nanoTime() - started).toMillis());
      return true;
    } catch (DataAccessException e) {
      log.error(
          "Admitted decisions Redis lost not restored to the decision log now; the restore owed"
              + " by the rebuild of gate epoch {} is tried again",
          restore.epoch(),
          e);
      return false;
    }
  }

  /**
   * The highest sequence number the partitions' counters say they gave, as Redis holds them now
   * (older than they were, if it came back older); 0 for none.
   */
  private long highestGiven(StringRedisTemplate redis) {
    long highest = 0;
    for (Partition partition : layout.partitions()) {
      String counter = redis.opsForValue().get(partition.sequence());
      if (counter != null) {
        highest =
            Math.max(highest, Long.parseLong(counter) * GateLayout.STRIDE + partition.index());
      }
    }
    return highest;
  }

  /**
   * The highest sequence number any partition ever gave, as far as anything tells: the record, the
   * counters ({@code given}), every entry of the decision streams and the decision log; above it,
   * the batch of decisions a drain may still be moving from a stream Redis lost.
   */
  private long highestSequence(StringRedisTemplate redis, GateImage image, long given) {
    long highest = Math.max(image.sequence, given);
    DecisionDrain drain = decisions.getIfAvailable();
    if (drain == null) {
      return highest;
    }
    highest = Math.max(highest, drain.highestSequence());
    for (Partition partition : layout.partitions()) {
      highest = Math.max(highest, DecisionDrain.highestInStream(redis, partition));
    }
    return highest + (long) drain.batch() * GateLayout.STRIDE;
  }

  /**
   * Where the buckets of each SKU of the record lie, spread over the servers: worked out once per
   * SKU (a rebuild asks for every line of every reservation).
   */
  private Function<String, List<Partition>> placements(
      GateImage image, ToIntFunction<Partition> servers) {
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
