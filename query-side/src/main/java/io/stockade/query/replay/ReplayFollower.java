package io.stockade.query.replay;

import io.stockade.platform.concurrent.DaemonThreads;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Every instance's part in a replay, done every poll interval on one thread.
 *
 * <p>REQUESTED: the owner builds copies of the read models' tables ({@link ReplayTables}): one bulk
 * fold of the event table ({@link ReplayFold}), then the events stored since, as the processors
 * write them ({@link ReplayCatchUp}). Meanwhile every instance's processors keep the models up to
 * date and every request reads them. Built, the replay is SWITCHING: every instance shuts its
 * projections' processors down (the models stop following for the switch only, and keep serving);
 * once no other instance claims a segment, and no sooner than two poll intervals after the switch
 * began (by then every instance has seen it), the owner brings the copies up to the event store
 * again, renames them in the models' place in one atomic step and records the replay DONE, and
 * every instance starts its processors again, every segment's token moved to the copies' end. An
 * owner that dies between the rename and the move leaves the tokens where the processors stopped:
 * they then apply the events up to the copies' end a second time, which changes nothing (the models
 * are idempotent: a ledger entry per event, a sequence number per reservation).
 *
 * <p>The owner beats on another thread while it builds. A replay whose owner stopped beating is
 * taken over by the first instance to see the lease expired: REQUESTED, it builds the copies again
 * from the start; SWITCHING, it finishes the switch if the rename has happened (no copy left, the
 * replaced tables there), and builds again otherwise. A switch whose segments are still claimed by
 * others at its deadline fails, as does a build that throws: FAILED, the copies dropped, the models
 * as they were. What a replaced owner still writes is refused ({@link ReplayRecords#owns}).
 */
@Component
class ReplayFollower {

  private static final Logger log = LoggerFactory.getLogger(ReplayFollower.class);

  private final Replays replays;
  private final ReplayRecords records;
  private final TokenEntries tokens;
  private final ProjectionProcessors processors;
  private final List<ReadModelFold> folds;
  private final List<String> tables;
  private final ReplayTables copies;
  private final ReplayFold fold;
  private final ReplayCatchUp catchUp;
  private final QueryNode node;
  private final ReplaySettings settings;
  private final TransactionTemplate transaction;
  private final TokenStore tokenStore;
  private final ScheduledExecutorService poller = thread("replay-follower");
  private final ScheduledExecutorService heart = thread("replay-heartbeat");

  /** The copies this instance built, and how far they are caught up: null before. */
  private Built built;

  private record Built(String replayId, TrackingToken end) {}

  ReplayFollower(
      Replays replays,
      ReplayRecords records,
      TokenEntries tokens,
      ProjectionProcessors processors,
      List<ReadModelFold> folds,
      ReplayTables copies,
      ReplayFold fold,
      ReplayCatchUp catchUp,
      QueryNode node,
      ReplaySettings settings,
      PlatformTransactionManager transactions,
      TokenStore tokenStore) {
    this.replays = replays;
    this.records = records;
    this.tokens = tokens;
    this.processors = processors;
    this.folds =
        folds.stream().filter(model -> processors.names().contains(model.processor())).toList();
    List<String> folded = this.folds.stream().map(ReadModelFold::processor).toList();
    if (!folded.containsAll(processors.names())) {
      throw new IllegalStateException(
          "stockade.replay.processors names "
              + processors.names()
              + " but only "
              + folded
              + " have a fold: a replay cannot rebuild the others beside their tables");
    }
    this.tables = this.folds.stream().flatMap(model -> model.tables().stream()).toList();
    this.copies = copies;
    this.fold = fold;
    this.catchUp = catchUp;
    this.node = node;
    this.settings = settings;
    this.transaction = new TransactionTemplate(transactions);
    this.tokenStore = tokenStore;
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
    if (replay == null || replay.status().equals("REQUESTED")) {
      processors.start();
    } else {
      processors.stop();
    }
    if (replay == null) {
      return;
    }
    boolean mine = replay.owner().equals(node.name());
    if (!mine) {
      if (replay.leaseExpired()
          && records.takeOver(
              replay.id(), node.name(), settings.lease(), settings.resetTimeout())) {
        log.warn("Replay {}: taken over from {}, whose lease expired", replay.id(), replay.owner());
        built = null;
        replays.refresh().ifPresent(this::takenOver);
      }
      return;
    }
    if (replay.status().equals("REQUESTED")) {
      build(replay);
    } else if (built == null || !built.replayId().equals(replay.id())) {
      // A switch whose copies' end this instance does not hold: as one taken over.
      takenOver(replay);
    } else {
      switchOver(replay);
    }
  }

  /** Goes on with a replay just taken over: see the class comment. */
  private void takenOver(ReplayRecords.Row replay) {
    if (replay.status().equals("REQUESTED")) {
      build(replay);
    } else if (switched()) {
      done(replay);
    } else if (records.rebuild(replay.id(), node.name())) {
      log.warn("Replay {}: building its tables again, its switch taken over", replay.id());
    }
  }

  /**
   * Builds the copies, beating every quarter of the lease meanwhile with the fold's progress (from
   * another thread, outside the fold's transaction), and records the replay SWITCHING.
   */
  private void build(ReplayRecords.Row replay) {
    String replayId = replay.id();
    AtomicLong folded = new AtomicLong();
    try (Beating beating = new Beating(replayId, folded)) {
      records.started(replayId, node.name());
      log.info("Replay {}: building copies of {}", replayId, tables);
      copies.createCopies(tables);
      TrackingToken end =
          transaction.execute(
              status -> {
                TrackingToken folding =
                    fold.fold(replayId, folds, ReplayTables.COPY, replay.head(), folded::set);
                requireOwner(replayId);
                return folding;
              });
      end = catchUp(replayId, end, folded);
      if (records.switching(replayId, node.name(), settings.resetTimeout())) {
        built = new Built(replayId, end);
        log.info("Replay {}: copies built up to {}; switching", replayId, end);
      }
    } catch (RuntimeException e) {
      if (records.owns(replayId, node.name())) {
        fail(replayId, "REQUESTED", "Could not build the read models: " + e);
      } else {
        log.info("Replay {}: no longer building here ({})", replayId, e.getMessage());
      }
    }
  }

  /**
   * The switch, once every other instance has stopped its processors: the copies caught up with the
   * event store, renamed in the models' place, the replay DONE. Until its deadline, a switch that
   * cannot be made yet is tried again at the next poll.
   */
  private void switchOver(ReplayRecords.Row replay) {
    records.heartbeat(replay.id(), node.name(), settings.lease());
    if (replay.switching().compareTo(settings.pollInterval().multipliedBy(2)) < 0) {
      return;
    }
    if (switched()) {
      // Renamed at an earlier try, which failed after it.
      done(replay);
      return;
    }
    List<String> claimed = tokens.claimedByOthers(processors.names(), node.name());
    if (claimed.isEmpty()) {
      AtomicLong progress = new AtomicLong(replay.folded());
      try (Beating beating = new Beating(replay.id(), progress)) {
        TrackingToken end = catchUp(replay.id(), built.end(), progress);
        built = new Built(replay.id(), end);
        requireOwner(replay.id());
        List<String> changed = copies.changedSinceCopied(tables);
        if (!changed.isEmpty()) {
          fail(
              replay.id(),
              "SWITCHING",
              "The read models' tables "
                  + changed
                  + " were changed while the replay built their copies (a migration?): run it"
                  + " again");
          return;
        }
        copies.switchToCopies(tables);
        log.info(
            "Replay {}: read models switched to their copies, built up to {}", replay.id(), end);
        transaction.executeWithoutResult(status -> moveTokens(end));
        done(replay);
        return;
      } catch (RuntimeException e) {
        log.info("Replay {}: not switched yet ({})", replay.id(), e.getMessage());
        claimed = List.of(String.valueOf(e.getMessage()));
      }
    }
    if (replay.resetOverdue()) {
      fail(
          replay.id(),
          "SWITCHING",
          "The read models could not be switched: segments still claimed by other instances ("
              + String.join(", ", claimed)
              + ") after "
              + settings.resetTimeout()
              + " (the token claim timeout is "
              + tokens.claimTimeout()
              + ")");
    }
  }

  /** Whether the copies are in the models' place: none left, every replaced table there. */
  private boolean switched() {
    return copies.existing(tables, ReplayTables.COPY) == 0
        && copies.existing(tables, ReplayTables.REPLACED) == tables.size();
  }

  private TrackingToken catchUp(String replayId, TrackingToken from, AtomicLong progress) {
    return catchUp.catchUp(
        folds,
        ReplayTables.COPY,
        from,
        () -> requireOwner(replayId),
        applied -> progress.addAndGet(applied));
  }

  /**
   * Every segment of the rebuilt models' processors goes on from the copies' end: nothing they hold
   * is applied again, and every event after it (or in its gaps) comes. The processors are stopped
   * everywhere and claim nothing; storing a token claims its segment here, which is released.
   */
  private void moveTokens(TrackingToken end) {
    if (end == null) {
      return;
    }
    for (String processor : processors.names()) {
      for (int segment : tokenStore.fetchSegments(processor)) {
        tokenStore.storeToken(end, processor, segment);
        tokenStore.releaseClaim(processor, segment);
      }
    }
  }

  private void requireOwner(String replayId) {
    if (!records.owns(replayId, node.name())) {
      throw new IllegalStateException("Replay " + replayId + " is no longer owned here");
    }
  }

  private void done(ReplayRecords.Row replay) {
    if (records.finish(replay.id(), "SWITCHING", "DONE", null)) {
      log.info("Replay {} done", replay.id());
    }
    copies.drop(tables, ReplayTables.REPLACED);
    built = null;
    replays.refresh();
    processors.start();
  }

  private void fail(String replayId, String from, String failure) {
    // Dropped first: a FAILED replay has left no copy behind.
    copies.drop(tables, ReplayTables.COPY);
    replays.fail(replayId, from, failure);
    built = null;
    processors.start();
  }

  /**
   * The owner's heartbeat, with its progress, every quarter of the lease while it works (on another
   * thread, outside the work's transactions).
   */
  private final class Beating implements AutoCloseable {

    private final String replayId;
    private final AtomicLong progress;
    private final ScheduledFuture<?> beats;

    Beating(String replayId, AtomicLong progress) {
      this.replayId = replayId;
      this.progress = progress;
      beat();
      long every = Math.max(1, settings.lease().toMillis() / 4);
      beats = heart.scheduleAtFixedRate(this::beat, every, every, TimeUnit.MILLISECONDS);
    }

    private void beat() {
      try {
        records.heartbeat(replayId, node.name(), settings.lease(), progress.get());
      } catch (RuntimeException e) {
        log.warn("Replay {}: no heartbeat this time", replayId, e);
      }
    }

    @Override
    public void close() {
      // Not waiting for a beat under way: it may wait on a row a commit has just released.
      beats.cancel(false);
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
