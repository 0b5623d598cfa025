package io.stockade.command.admission.rebuild;

import io.stockade.api.StreamFold;
import io.stockade.command.admission.redis.GateProperties;
import io.stockade.platform.eventstore.EventTableFold;
import java.time.Duration;
import java.time.Instant;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Loads the gate's image from the event store, for a rebuild and for the restores of the decision
 * log that rebuilds owe: folds it from the newest valid checkpoint on, or from the start without
 * one, and remembers which checkpoint the last fold went on from.
 */
@Component
class GateFold {

  private static final Logger log = LoggerFactory.getLogger(GateFold.class);

  /** How often the fold hears the lease, in events. */
  private static final int EVENTS_BETWEEN_RENEWALS = 1000;

  private final EventTableFold events;
  private final GateCheckpoints checkpoints;
  private final Duration retention;

  GateFold(EventTableFold events, GateCheckpoints checkpoints, GateProperties properties) {
    this.events = events;
    this.checkpoints = checkpoints;
    this.retention = properties.intentRetention();
  }

  /** The checkpoint the last fold on this instance went on from; -1 for the whole record. */
  private volatile long lastCheckpoint = -1;

  /** The id of the checkpoint the last fold on this instance went on from; -1 for none. */
  long lastCheckpoint() {
    return lastCheckpoint;
  }

  /** The event store's highest global index now (0 when it is empty): where a fold will end. */
  long head() {
    return events.head();
  }

  /**
   * Folds the event store into the gate's image as of {@code now}: from the newest valid checkpoint
   * ({@link GateCheckpoints}) on, or from the start without one; telling {@code progress} the
   * global index reached every {@value #EVENTS_BETWEEN_RENEWALS} events and logging each tenth of
   * {@code head} under {@code what}.
   */
  GateImage fold(Instant now, long head, String what, LongConsumer progress) {
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
}
