package io.stockade.query.replay;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Rebuilds every read model from the event stream beside the models in use, which keep answering
 * and following new events on every query-side instance that shares the database, and switches to
 * the rebuilt ones at once when they are whole. A replay is a row of {@code read_model_replay} that
 * each instance follows ({@link ReplayFollower}): REQUESTED while its owner builds copies of the
 * models' tables, SWITCHING while every instance's processors stop for the rename of the copies in
 * the models' place, then DONE (or FAILED, the models as they were). Responses served while one is
 * in progress carry {@code Stockade-Replay} ({@link ReplayHeader}).
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
  private final JdbcTemplate jdbc;
  private final QueryNode node;
  private final ReplaySettings settings;
  private volatile ReplayRecords.Row current;
  private volatile long readAt = Long.MIN_VALUE;

  Replays(ReplayRecords records, JdbcTemplate jdbc, QueryNode node, ReplaySettings settings) {
    this.records = records;
    this.jdbc = jdbc;
    this.node = node;
    this.settings = settings;
  }

  /**
   * The replay in progress, on this instance or another, if any. The shared state is read again
   * once it is older than the poll interval; when the database cannot be read, as it was last read,
   * tried again a poll interval later (the request's own read of the models answers for the
   * outage).
   */
  public Optional<String> inProgress() {
    if (System.nanoTime() - readAt > settings.pollInterval().toNanos()) {
      try {
        refresh();
      } catch (DataAccessException unreadable) {
        // Not tried again by every request of the outage: once a poll interval.
        readAt = System.nanoTime();
        log.debug("The replay state could not be read; as it was", unreadable);
      }
    }
    ReplayRecords.Row replay = current;
    return replay == null ? Optional.empty() : Optional.of(replay.id());
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

  /** The replay in progress as the database has it now, kept for {@link #inProgress()}. */
  synchronized Optional<ReplayRecords.Row> refresh() {
    current = records.inProgress().orElse(null);
    readAt = System.nanoTime();
    return Optional.ofNullable(current);
  }

  /**
   * Ends a replay that could not be built or switched; every instance's models stay as they were.
   */
  void fail(String replayId, String from, String failure) {
    if (records.finish(replayId, from, "FAILED", failure)) {
      log.error("Replay {} failed: {}", replayId, failure);
    }
    refresh();
  }

  private Replay observe(ReplayRecords.Row replay) {
    ReplayRecords.Row cached = current;
    if (cached != null
        && cached.id().equals(replay.id())
        && !List.of("REQUESTED", "SWITCHING").contains(replay.status())) {
      // Seen ended here first: not reported as in progress after the poll interval.
      refresh();
    }
    return switch (replay.status()) {
      case "REQUESTED", "SWITCHING" ->
          view(replay, "RUNNING", Math.min(replay.folded(), replay.head()), null);
      case "DONE" -> view(replay, "DONE", replay.head(), replay.finishedAt());
      default -> view(replay, replay.status(), 0, replay.finishedAt());
    };
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
