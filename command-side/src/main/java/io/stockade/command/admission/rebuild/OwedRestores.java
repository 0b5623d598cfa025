package io.stockade.command.admission.rebuild;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.decisions.DecisionLogRestores;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateLayout.Partition;
import io.stockade.command.admission.redis.GateServers;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The restores of the decision log a rebuild owes: the admitted decisions Redis lost, as the
 * rebuild's image tells them. Records one as owed before the rebuilt gate opens and gives it once
 * the gate is open, trying again for a while; takes up those left overdue, on any instance.
 */
@Component
public class OwedRestores {

  private static final Logger log = LoggerFactory.getLogger(OwedRestores.class);

  private final GateFold fold;
  private final GateImageWriter writer;
  private final GateLayout layout;
  private final Clock clock;
  private final ObjectProvider<DecisionLogRestores> decisions;
  private final StringRedisTemplate serviceRedis;

  OwedRestores(
      GateFold fold,
      GateImageWriter writer,
      GateLayout layout,
      Clock clock,
      ObjectProvider<DecisionLogRestores> decisions,
      StringRedisTemplate serviceRedis) {
    this.fold = fold;
    this.writer = writer;
    this.layout = layout;
    this.clock = clock;
    this.decisions = decisions;
    this.serviceRedis = serviceRedis;
  }

  /**
   * How long after a rebuild's gate opens its restore of the decision log may take before any
   * instance takes it up again (the rebuilding one stopped, or its restore failed).
   */
  public static final Duration RESTORE_DUE = Duration.ofMinutes(2);

  /**
   * Records the restore the rebuild of {@code epoch} owes, before the gate opens: once it is open
   * the drain moves the new streams' entries, and if this instance stops before it has restored
   * them, another one takes the restore up. Owed for every partition: a stream that survived may
   * have come back older (a snapshot, a lagging replica), without its newest entries, and nothing
   * says which.
   *
   * @return what is left to do once the gate is open: the restore, or nothing without a decision
   *     log
   */
  Runnable owe(long epoch, GateImage image, Function<String, List<Partition>> placements) {
    DecisionLogRestores decisionLog = decisions.getIfAvailable();
    Runnable afterOpen = () -> {};
    if (decisionLog != null) {
      Set<String> every = new HashSet<>();
      layout.partitions().forEach(partition -> every.add(partition.tag()));
      DecisionLogRestores.Restore restore = decisionLog.restoreOwed(epoch, every, RESTORE_DUE);
      List<DecisionLogRestores.Admitted> owed = admitted(image, placements, every);
      afterOpen = () -> restoreUntilDone(decisionLog, restore, owed, Thread::sleep);
    }
    return afterOpen;
  }

  /**
   * Takes up the restores of the decision log that rebuilds owe past their due time (the instance
   * that rebuilt stopped, or its restore failed): folds the event store again and restores them.
   */
  @Scheduled(
      fixedDelayString = "${stockade.decisions.restore-check-interval:1m}",
      initialDelayString = "${stockade.decisions.restore-check-interval:1m}")
  public void takeUpOwedRestores() {
    DecisionLogRestores decisionLog = decisions.getIfAvailable();
    if (decisionLog == null) {
      return;
    }
    try {
      List<DecisionLogRestores.Restore> owed = decisionLog.takeOverdueRestores(RESTORE_DUE);
      if (owed.isEmpty()) {
        return;
      }
      long head = fold.head();
      GateImage image =
          fold.fold(clock.instant(), head, "Owed restore of the decision log", i -> {});
      Function<String, List<Partition>> placements =
          writer.placements(image, GateServers.servers(serviceRedis));
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
}
