package io.stockade.query.replay;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.axonframework.config.EventProcessingConfiguration;
import org.axonframework.eventhandling.EventTrackerStatus;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Rebuilds every read model from the event stream: each projection's processor is shut down, its
 * tokens reset (its {@code @ResetHandler} empties its tables) and started again, and replays the
 * stream from the first event. Progress is the processors' position against the head of the event
 * store when the replay began. While a replay runs, the read model's endpoints answer 503.
 *
 * <p>One query-side instance: a processor's tokens can only be reset while no instance holds them.
 */
@Component
public class Replays implements DisposableBean {

  /** What a replay looks like from outside. */
  public record Replay(
      String replayId,
      String status,
      long processed,
      long total,
      int percent,
      Instant startedAt,
      Instant finishedAt,
      String failure) {}

  private record Run(String id, long head, Instant startedAt) {}

  private static final Logger log = LoggerFactory.getLogger(Replays.class);

  private final EventProcessingConfiguration processing;
  private final JdbcTemplate jdbc;
  private final List<String> projections;
  private final Clock clock = Clock.systemUTC();
  private final ScheduledExecutorService watcher =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "replay-watcher");
            thread.setDaemon(true);
            return thread;
          });
  private final AtomicReference<Run> running = new AtomicReference<>();
  private volatile Replay last;

  Replays(
      EventProcessingConfiguration processing,
      JdbcTemplate jdbc,
      @Value("${stockade.replay.processors:stock-projection,reservation-projection}")
          List<String> projections) {
    this.processing = processing;
    this.jdbc = jdbc;
    this.projections = List.copyOf(projections);
  }

  /** Whether the read models are being rebuilt: their endpoints then answer 503. */
  public boolean running() {
    return running.get() != null;
  }

  /**
   * Starts a replay of every projection.
   *
   * @return empty when one is running already
   */
  synchronized Optional<Replay> start() {
    if (running.get() != null) {
      return Optional.empty();
    }
    long head =
        jdbc.queryForObject(
            "select coalesce(max(global_index), 0) from domain_event_entry", Long.class);
    Run run = new Run(UUID.randomUUID().toString(), head, clock.instant());
    running.set(run);
    try {
      for (String name : projections) {
        StreamingEventProcessor processor = processor(name);
        processor.shutDown();
        processor.resetTokens();
        processor.start();
      }
    } catch (RuntimeException e) {
      log.error("Replay {} failed to start", run.id(), e);
      last = finished(run, "FAILED", String.valueOf(e.getMessage()));
      running.set(null);
      projections.forEach(name -> processor(name).start());
      return Optional.of(last);
    }
    log.info("Replay {} started: read models rebuilt up to global index {}", run.id(), head);
    last = progress(run);
    watcher.schedule(() -> watch(run), 200, TimeUnit.MILLISECONDS);
    return Optional.of(last);
  }

  /** The replay with this id: the one running, or the last one. */
  Optional<Replay> find(String replayId) {
    Run run = running.get();
    if (run != null && run.id().equals(replayId)) {
      return Optional.of(observe(run));
    }
    Replay done = last;
    return done != null && done.replayId().equals(replayId) ? Optional.of(done) : Optional.empty();
  }

  /** The replay's progress now; once DONE, the read models are served again. */
  private synchronized Replay observe(Run run) {
    if (running.get() != run) {
      return last;
    }
    Replay now = progress(run);
    last = now;
    if (now.status().equals("DONE")) {
      running.compareAndSet(run, null);
      log.info("Replay {} done: {} of {}", run.id(), now.processed(), now.total());
    }
    return now;
  }

  private void watch(Run run) {
    try {
      if (observe(run).status().equals("DONE")) {
        return;
      }
    } catch (RuntimeException e) {
      log.warn("Replay {}: progress unknown for now", run.id(), e);
    }
    if (!watcher.isShutdown()) {
      watcher.schedule(() -> watch(run), 200, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * DONE once every segment of every projection has reached the head the replay began at. (Axon
   * reports a segment as replaying until it handles an event past that head, which an idle stream
   * never brings: positions decide.)
   */
  private Replay progress(Run run) {
    long processed = Long.MAX_VALUE;
    boolean claimed = true;
    for (String name : projections) {
      StreamingEventProcessor processor = processor(name);
      var statuses = processor.processingStatus().values();
      if (statuses.isEmpty() || statuses.size() < segments(name)) {
        claimed = false;
      }
      for (EventTrackerStatus status : statuses) {
        OptionalLong position = status.getCurrentPosition();
        processed = Math.min(processed, position.isPresent() ? position.getAsLong() : 0);
      }
    }
    if (processed == Long.MAX_VALUE) {
      processed = 0;
    }
    processed = Math.min(processed, run.head());
    boolean done = claimed && processed >= run.head();
    int percent = run.head() == 0 ? 100 : (int) (processed * 100 / run.head());
    return new Replay(
        run.id(),
        done ? "DONE" : "RUNNING",
        processed,
        run.head(),
        done ? 100 : Math.min(percent, 99),
        run.startedAt(),
        done ? clock.instant() : null,
        null);
  }

  private int segments(String processorName) {
    return jdbc.queryForObject(
        "select count(*) from token_entry where processor_name = ?", Integer.class, processorName);
  }

  private Replay finished(Run run, String status, String failure) {
    return new Replay(
        run.id(), status, 0, run.head(), 0, run.startedAt(), clock.instant(), failure);
  }

  private StreamingEventProcessor processor(String name) {
    return processing
        .eventProcessor(name, StreamingEventProcessor.class)
        .orElseThrow(() -> new IllegalStateException("No streaming processor " + name));
  }

  @Override
  public void destroy() {
    watcher.shutdownNow();
  }
}
