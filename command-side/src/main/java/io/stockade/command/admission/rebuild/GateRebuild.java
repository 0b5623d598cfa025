package io.stockade.command.admission.rebuild;

import io.stockade.command.admission.decisions.DecisionDrain;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateLayout.Partition;
import io.stockade.command.admission.redis.GateProperties;
import io.stockade.command.admission.redis.GateServers;
import io.stockade.platform.concurrent.DaemonThreads;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * Rebuilds the gate's keys in Redis from the event store (restore.lua, per partition): closes every
 * partition for the new epoch, clears every key of the gate (not the rate limits' under the same
 * prefix), writes what the record says, and opens every partition in the new epoch. Each step is
 * one script call that does nothing once another rebuild has taken over.
 *
 * <p>The steps of a rebuild in order, each done by its part: the image loaded from the event store
 * ({@link GateFold}), written to Redis ({@link GateImageWriter}), and the restore of the decision
 * log it owes ({@link OwedRestores}).
 */
@Component
public class GateRebuild {

  private static final Logger log = LoggerFactory.getLogger(GateRebuild.class);

  private final GateFold fold;
  private final GateImageWriter imageWriter;
  private final OwedRestores restores;
  private final GateLayout layout;
  private final Duration retention;
  private final Clock clock;
  private final ObjectProvider<DecisionDrain> decisions;

  GateRebuild(
      GateFold fold,
      GateImageWriter imageWriter,
      OwedRestores restores,
      GateLayout layout,
      GateProperties properties,
      Clock clock,
      ObjectProvider<DecisionDrain> decisions) {
    this.fold = fold;
    this.imageWriter = imageWriter;
    this.restores = restores;
    this.layout = layout;
    this.retention = properties.intentRetention();
    this.clock = clock;
    this.decisions = decisions;
  }

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

  /** The id of the checkpoint the last fold on this instance went on from; -1 for none. */
  long lastCheckpoint() {
    return fold.lastCheckpoint();
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
    long head = fold.head();
    FutureTask<GateImageWriter.Cleared> clearing =
        new FutureTask<>(() -> imageWriter.clear(redis, writers));
    Thread clearer = DaemonThreads.named("gate-rebuild-clearing").newThread(clearing);
    clearer.start();
    GateImage image;
    GateImageWriter.Cleared cleared;
    try {
      progress = new Progress(epoch, "READING", 0, head);
      image =
          fold.fold(
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
    Function<String, List<Partition>> placements =
        imageWriter.placements(image, GateServers.servers(redis));
    int drawRefused = imageWriter.writeImage(writers, image, intents, placements, now);
    // Every partition's sequence goes on above every sequence in the record, in the decision log
    // and in the decision streams; and above the batch of decisions a drain may still be moving
    // from a stream Redis lost.
    String counter = String.valueOf(highestSequence(redis, image, given) / GateLayout.STRIDE + 1);
    for (RestoreWriter writer : writers) {
      writer.add("SET", writer.partition().sequence(), counter);
    }
    // Owed before the gate opens, for every partition.
    Runnable afterOpen = restores.owe(epoch, image, placements);
    for (RestoreWriter writer : writers) {
      writer.open(runId, layout);
    }
    log.warn(
        "Gate rebuilt as epoch {} from {} events ({}) in {} partitions: {} SKUs, {} reservations,"
            + " {} refusals of draws, {} stale keys cleared, in {} ms ({} ms to clear and fold)",
        epoch,
        image.events,
        lastCheckpoint() < 0
            ? "the whole record"
            : "checkpoint " + lastCheckpoint() + " and the events after it",
        writers.size(),
        image.skus.size(),
        intents.size(),
        drawRefused,
        cleared.stale(),
        Duration.ofNanos(System.nanoTime() - started).toMillis(),
        Duration.ofNanos(folded - started).toMillis());
    return afterOpen;
  }

  /** The clearing's outcome, once it has ended; its failure thrown as it was. */
  private static GateImageWriter.Cleared finished(FutureTask<GateImageWriter.Cleared> clearing) {
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
}
