package io.stockade.query.replay;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Every instance's part in a replay, done every poll interval on one thread: while a replay is
 * REQUESTED its projections' processors are shut down (releasing its claims); once it is RUNNING,
 * or has ended, they run. The owner beats, and resets the tokens once no other instance claims a
 * segment, or fails the replay when that does not happen by its deadline. A REQUESTED replay whose
 * owner stopped beating (it crashed, or was stopped) is taken over by the first instance to see the
 * lease expired; a RUNNING one needs no owner: any instance records it DONE. An instance that died
 * holding claims delays the reset by the token store's claim timeout at most.
 */
@Component
class ReplayFollower {

  private static final Logger log = LoggerFactory.getLogger(ReplayFollower.class);

  private final Replays replays;
  private final ReplayRecords records;
  private final TokenEntries tokens;
  private final ProjectionProcessors processors;
  private final QueryNode node;
  private final ReplaySettings settings;
  private final ScheduledExecutorService poller =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "replay-follower");
            thread.setDaemon(true);
            return thread;
          });

  ReplayFollower(
      Replays replays,
      ReplayRecords records,
      TokenEntries tokens,
      ProjectionProcessors processors,
      QueryNode node,
      ReplaySettings settings) {
    this.replays = replays;
    this.records = records;
    this.tokens = tokens;
    this.processors = processors;
    this.node = node;
    this.settings = settings;
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
        processors.resetTokens();
        if (records.running(replay.id(), node.name())) {
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

  /** Stops following before the processors stop with the application. */
  @EventListener(ContextClosedEvent.class)
  void closing() throws InterruptedException {
    poller.shutdown();
    if (!poller.awaitTermination(30, TimeUnit.SECONDS)) {
      poller.shutdownNow();
    }
  }
}
