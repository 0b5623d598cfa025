package io.stockade.query.replay;

import io.stockade.platform.concurrent.DaemonThreads;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Every instance's part in a replay, done every poll interval on one thread: while a replay is
 * REQUESTED its projections' processors are shut down (releasing its claims); once it is RUNNING,
 * or has ended, they run. The owner beats, and resets the tokens once no other instance claims a
 * segment, or fails the replay when that does not happen by its deadline. A REQUESTED replay whose
 * owner stopped beating (it crashed, or was stopped) is taken over by the first instance to see the
 * lease expired; a RUNNING one needs no owner: any instance records it DONE. An instance that died
 * holding claims delays the reset by the token store's claim timeout at most.
 *
 * <p>A replay ends DONE with whole models, or FAILED with the models it started from. The reset is
 * one database transaction: every processor's tokens, every reset handler's deletes, the bulk fold
 * of the event table into the models and its end token for their segments, and the replay's move
 * from REQUESTED to RUNNING ({@link ReplayRecords#running}) commit together or not at all, and a
 * reset that finds the replay no longer REQUESTED rolls back. FAILED is recorded only from
 * REQUESTED, by a conditional UPDATE of the same row, which waits for a reset that has moved it to
 * RUNNING to commit or roll back: so a replay whose reset committed is RUNNING and can only end
 * DONE, and a FAILED one never had its reset committed. That holds whatever the clocks, leases and
 * pauses do; the lease only decides who tries. An owner beats on another thread while it resets
 * (which at a million rows takes tens of seconds), so that a live owner is not taken over and the
 * others do not fail the replay on their own deadline while its reset is under way.
 */
@Component
class ReplayFollower {

  private static final Logger log = LoggerFactory.getLogger(ReplayFollower.class);

  private final Replays replays;
  private final ReplayRecords records;
  private final TokenEntries tokens;
  private final ProjectionProcessors processors;
  private final ReplayFold fold;
  private final QueryNode node;
  private final ReplaySettings settings;
  private final TransactionTemplate transaction;
  private final ScheduledExecutorService poller = thread("replay-follower");
  private final ScheduledExecutorService heart = thread("replay-heartbeat");

  ReplayFollower(
      Replays replays,
      ReplayRecords records,
      TokenEntries tokens,
      ProjectionProcessors processors,
      ReplayFold fold,
      QueryNode node,
      ReplaySettings settings,
      PlatformTransactionManager transactions) {
    this.replays = replays;
    this.records = records;
    this.tokens = tokens;
    this.processors = processors;
    this.fold = fold;
    this.node = node;
    this.settings = settings;
    this.transaction = new TransactionTemplate(transactions);
    long interval = settings.pollInterval().toMillis();
    poller.scheduleWithFixedDelay(this::poll, interval, interval, TimeUnit.MILLISECONDS);
  }

  private void poll() {
    try {
      follow(replays.refresh().orElse(null));
    } catch (RuntimeException e) {
      log.warn("Could not follow the replay state; trying again", e);
    }
  }

  private void follow(ReplayRecords.Row replay) {
    if (replay == null) {
      processors.start();
    } else if (replay.status().equals("REQUESTED")) {
      processors.stop();
      if (!replay.owner().equals(node.name())
          && replay.leaseExpired()
          && records.takeOver(
              replay.id(), node.name(), settings.lease(), settings.resetTimeout())) {
        log.warn("Replay {}: taken over from {}, whose lease expired", replay.id(), replay.owner());
        replays.refresh().ifPresent(this::reset);
      } else if (replay.owner().equals(node.name())) {
        reset(replay);
      }
    } else {
      processors.start();
      // Records it DONE once every segment has reached its head.
      replays.find(replay.id());
    }
  }

  /**
   * Resets the tokens once no other instance claims a segment, and no sooner than two poll
   * intervals after the request: by then every instance reads the replay as in progress, and none
   * serves the tables the reset empties.
   */
  private void reset(ReplayRecords.Row replay) {
    records.heartbeat(replay.id(), node.name(), settings.lease());
    if (replay.age().compareTo(settings.pollInterval().multipliedBy(2)) < 0) {
      return;
    }
    List<String> claimed = tokens.claimedByOthers(processors.names(), node.name());
    if (claimed.isEmpty()) {
      try {
        if (resetAndRun(replay)) {
          log.info("Replay {}: tokens reset, rebuilding", replay.id());
        }
        return;
      } catch (RuntimeException e) {
        log.info("Replay {}: tokens not reset yet ({})", replay.id(), e.getMessage());
        claimed = List.of(String.valueOf(e.getMessage()));
      }
    }
    if (replay.resetOverdue()) {
      replays.fail(
          replay,
          "The tokens could not be reset: segments still claimed by other instances ("
              + String.join(", ", claimed)
              + ") after "
              + settings.resetTimeout()
              + " (the token claim timeout is "
              + tokens.claimTimeout()
              + ")");
    }
  }

  /**
   * Resets the tokens, folds the event table into the models that have a fold ({@link ReplayFold}),
   * and records the replay RUNNING, in one transaction, beating every quarter of the lease
   * meanwhile with the fold's progress (from another thread, so outside the transaction).
   *
   * @return false, nothing changed, when the replay was no longer REQUESTED
   */
  private boolean resetAndRun(ReplayRecords.Row replay) {
    String replayId = replay.id();
    AtomicLong folded = new AtomicLong();
    beat(replayId, folded);
    long beat = Math.max(1, settings.lease().toMillis() / 4);
    ScheduledFuture<?> beating =
        heart.scheduleAtFixedRate(() -> beat(replayId, folded), beat, beat, TimeUnit.MILLISECONDS);
    try {
      return Boolean.TRUE.equals(
          transaction.execute(
              status -> {
                processors.resetTokens();
                fold.fold(replayId, processors.names(), replay.head(), folded::set);
                if (records.running(replayId)) {
                  return true;
                }
                status.setRollbackOnly();
                return false;
              }));
    } finally {
      // Not waiting for a beat under way: it may wait on the row the commit has just released.
      beating.cancel(false);
    }
  }

  private void beat(String replayId, AtomicLong folded) {
    try {
      records.heartbeat(replayId, node.name(), settings.lease(), folded.get());
    } catch (RuntimeException e) {
      log.warn("Replay {}: no heartbeat this time", replayId, e);
    }
  }

  /** Stops following before the processors stop with the application. */
  @EventListener(ContextClosedEvent.class)
  void closing() throws InterruptedException {
    poller.shutdown();
    if (!poller.awaitTermination(30, TimeUnit.SECONDS)) {
      poller.shutdownNow();
    }
    heart.shutdownNow();
  }

  private static ScheduledExecutorService thread(String name) {
    return Executors.newSingleThreadScheduledExecutor(DaemonThreads.named(name));
  }
}
