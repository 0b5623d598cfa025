package io.stockade.query.replay;

import io.stockade.platform.web.ProblemException;
import io.stockade.query.QueryProblems;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Rebuilds every read model from the event stream, on every query-side instance that shares the
 * database. A replay is a row of {@code read_model_replay} that each instance follows ({@link
 * ReplayFollower}): REQUESTED, every instance shuts its projections' processors down; the instance
 * that owns the replay resets the tokens (each projection's {@code @ResetHandler} empties its
 * tables) once no other instance claims a segment, folds the event table into the models that have
 * a {@link ReadModelFold} and gives their segments the fold's end ({@link ReplayFold}), all in one
 * transaction, and the replay is RUNNING; every instance starts its processors again, and they go
 * on from there (a processor without a fold replays from the first event). It is DONE once every
 * segment of every projection, read from the shared token store, has reached the head of the event
 * store when the replay was requested. While a replay is REQUESTED or RUNNING, the read model's
 * endpoints answer 503 on every instance.
 */
@Component
public class Replays {

  /** What a replay looks like from outside. */
  public record Replay(
      String replayId,
      String status,
      long processed,
      long total,
      int percent,
      Instant requestedAt,
      Instant startedAt,
      Instant finishedAt,
      String failure) {}

  private static final Logger log = LoggerFactory.getLogger(Replays.class);

  private final ReplayRecords records;
  private final TokenEntries tokens;
  private final ProjectionProcessors processors;
  private final JdbcTemplate jdbc;
  private final QueryNode node;
  private final ReplaySettings settings;
  private volatile ReplayRecords.Row current;
  private volatile long readAt = Long.MIN_VALUE;

  Replays(
      ReplayRecords records,
      TokenEntries tokens,
      ProjectionProcessors processors,
      JdbcTemplate jdbc,
      QueryNode node,
      ReplaySettings settings) {
    this.records = records;
    this.tokens = tokens;
    this.processors = processors;
    this.jdbc = jdbc;
    this.node = node;
    this.settings = settings;
  }

  /**
   * Whether the read models are being rebuilt, by this instance or another: their endpoints then
   * answer 503. The shared state is read again once it is older than the poll interval.
   */
  public boolean running() {
    if (System.nanoTime() - readAt > settings.pollInterval().toNanos()) {
      refresh();
    }
    return current != null;
  }

  /**
   * Answers 503 {@code replay-in-progress} with Retry-After while a replay rebuilds the read
   * models, rather than numbers of a half-built model. The endpoints that read them call it once
   * they have found the request valid, just before they read: a malformed request is its 400
   * whatever the state of the read models, and costs no look at the shared replay state. The audit
   * of a reservation reads the event store and does not call it, nor does the reconciliation, which
   * still compares the gate with the events and reports the read model as REPLAYING.
   *
   * @throws ProblemException 503 {@code replay-in-progress} while a replay is in progress
   */
  public void requireIdle() {
    if (running()) {
      throw ProblemException.unavailable(
          QueryProblems.REPLAY_IN_PROGRESS,
          "The read models are being rebuilt from the event stream; retry shortly.",
          1);
    }
  }

  /**
   * Requests a replay of every projection, owned by this instance; the followers of every instance
   * carry it out. The ended replays but the last {@code stockade.replay.keep} are deleted first.
   *
   * @return empty when one is in progress already
   */
  synchronized Optional<Replay> start() {
    long head =
        jdbc.queryForObject(
            "select coalesce(max(global_index), 0) from domain_event_entry", Long.class);
    records.prune(settings.keep());
    String id = UUID.randomUUID().toString();
    if (!records.request(id, head, node.name(), settings.lease(), settings.resetTimeout())) {
      return Optional.empty();
    }
    log.info("Replay {} requested: read models rebuilt up to global index {}", id, head);
    refresh();
    return find(id);
  }

  /** The replay with this id, requested on any instance; its progress now. */
  Optional<Replay> find(String replayId) {
    return records.find(replayId).map(this::observe);
  }

  /** The replay in progress as the database has it now, kept for {@link #running()}. */
  synchronized Optional<ReplayRecords.Row> refresh() {
    current = records.inProgress().orElse(null);
    readAt = System.nanoTime();
    return Optional.ofNullable(current);
  }

  /** Ends a replay that could not reset the tokens; every instance starts its processors again. */
  void fail(ReplayRecords.Row replay, String failure) {
    if (records.finish(replay.id(), "REQUESTED", "FAILED", failure)) {
      log.error("Replay {} failed: {}", replay.id(), failure);
    }
    refresh();
  }

  private Replay observe(ReplayRecords.Row replay) {
    ReplayRecords.Row cached = current;
    if (cached != null
        && cached.id().equals(replay.id())
        && !List.of("REQUESTED", "RUNNING").contains(replay.status())) {
      // Seen ended here first: serve the read models again now, not after the poll interval.
      refresh();
    }
    return switch (replay.status()) {
      // Its reset and fold not committed yet: as far as the owner's fold has gone.
      case "REQUESTED" -> view(replay, "RUNNING", Math.min(replay.folded(), replay.head()), null);
      case "RUNNING" -> progress(replay);
      case "DONE" -> view(replay, "DONE", replay.head(), replay.finishedAt());
      default -> view(replay, replay.status(), 0, replay.finishedAt());
    };
  }

  /**
   * DONE once every segment of every projection has reached the head the replay began at, and
   * recorded as such by whichever instance sees it first. (Axon reports a segment as replaying
   * until it handles an event past that head, which an idle stream never brings: positions decide.)
   */
  private Replay progress(ReplayRecords.Row replay) {
    OptionalLong lowest = tokens.lowestPosition(processors.names());
    long processed = Math.min(lowest.orElse(0), replay.head());
    if (lowest.isEmpty() || processed < replay.head()) {
      return view(replay, "RUNNING", processed, null);
    }
    if (records.finish(replay.id(), "RUNNING", "DONE", null)) {
      log.info("Replay {} done: {} of {}", replay.id(), processed, replay.head());
    }
    refresh();
    return records.find(replay.id()).map(this::observe).orElseThrow();
  }

  private static Replay view(
      ReplayRecords.Row replay, String status, long processed, Instant finishedAt) {
    int percent =
        switch (status) {
          case "DONE" -> 100;
          case "RUNNING" ->
              replay.head() == 0 ? 99 : (int) Math.min(processed * 100 / replay.head(), 99);
          default -> 0;
        };
    return new Replay(
        replay.id(),
        status,
        processed,
        replay.head(),
        percent,
        replay.requestedAt(),
        replay.startedAt(),
        finishedAt,
        replay.failure());
  }
}
