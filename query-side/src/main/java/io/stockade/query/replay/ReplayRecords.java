package io.stockade.query.replay;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The table {@code read_model_replay}: the replay every query-side instance follows. Every change
 * is one conditional UPDATE, so instances racing for the same step agree on who made it; times come
 * from the database's clock, the one clock every instance shares.
 */
@Component
class ReplayRecords {

  /** A replay as stored. */
  record Row(
      String id,
      String status,
      long head,
      Instant requestedAt,
      Instant startedAt,
      Instant finishedAt,
      String failure,
      String owner,
      long folded,
      boolean leaseExpired,
      boolean resetOverdue,
      Duration switching) {}

  private static final String COLUMNS =
      "id, status, head, requested_at, started_at, finished_at, failure, owner, folded,"
          + " lease_until < utc_timestamp(6) as lease_expired,"
          + " reset_deadline < utc_timestamp(6) as reset_overdue,"
          + " timestampdiff(microsecond, switching_at, utc_timestamp(6)) as switching_micros";

  private final JdbcTemplate jdbc;
  private final Counter done;
  private final Counter failed;

  ReplayRecords(JdbcTemplate jdbc, MeterRegistry meters) {
    this.jdbc = jdbc;
    this.done = ended(meters, "DONE");
    this.failed = ended(meters, "FAILED");
  }

  /**
   * The counter {@code stockade.replays} (tag {@code status}): replays this instance ended DONE or
   * FAILED (the instance that ends one counts it; sum over the instances).
   */
  private static Counter ended(MeterRegistry meters, String status) {
    return Counter.builder("stockade.replays")
        .description("replays of the read models this instance ended, by how they ended")
        .tag("status", status)
        .register(meters);
  }

  /**
   * Records a new replay, REQUESTED, owned by {@code owner}.
   *
   * @return false when another replay is in progress
   */
  boolean request(String id, long head, String owner, Duration lease, Duration resetTimeout) {
    try {
      jdbc.update(
          "insert into read_model_replay (id, status, head, requested_at, owner, lease_until,"
              + " reset_deadline, in_progress) values (?, 'REQUESTED', ?, utc_timestamp(6), ?,"
              + " timestampadd(microsecond, ?, utc_timestamp(6)),"
              + " timestampadd(microsecond, ?, utc_timestamp(6)), 1)",
          id,
          head,
          owner,
          micros(lease),
          micros(resetTimeout));
      return true;
    } catch (DuplicateKeyException inProgress) {
      return false;
    }
  }

  /**
   * Deletes the ended replays (DONE or FAILED) but the {@code keep} requested last; those requested
   * at the same instant as the last one kept stay too.
   */
  void prune(int keep) {
    jdbc
        .queryForList(
            "select requested_at from read_model_replay where in_progress is null"
                + " order by requested_at desc limit 1 offset ?",
            LocalDateTime.class,
            keep - 1)
        .stream()
        .findFirst()
        .ifPresent(
            oldestKept ->
                jdbc.update(
                    "delete from read_model_replay where in_progress is null and requested_at < ?",
                    oldestKept));
  }

  /** The replay in progress (REQUESTED or SWITCHING), if any. */
  Optional<Row> inProgress() {
    return jdbc
        .query("select " + COLUMNS + " from read_model_replay where in_progress = 1", this::row)
        .stream()
        .findFirst();
  }

  Optional<Row> find(String id) {
    return jdbc
        .query("select " + COLUMNS + " from read_model_replay where id = ?", this::row, id)
        .stream()
        .findFirst();
  }

  /** The owner's heartbeat: keeps the others from taking its replay over for {@code lease}. */
  void heartbeat(String id, String owner, Duration lease) {
    jdbc.update(
        "update read_model_replay set lease_until = timestampadd(microsecond, ?, utc_timestamp(6))"
            + " where id = ? and owner = ? and in_progress = 1",
        micros(lease),
        id,
        owner);
  }

  /**
   * The heartbeat of an owner folding the event table, with the global index its fold has reached
   * (the fold's transaction has not committed: this is the only progress the others can see).
   */
  void heartbeat(String id, String owner, Duration lease, long folded) {
    jdbc.update(
        "update read_model_replay set lease_until = timestampadd(microsecond, ?, utc_timestamp(6)),"
            + " folded = ? where id = ? and owner = ? and in_progress = 1",
        micros(lease),
        folded,
        id,
        owner);
  }

  /** The owner begins building the copies: the replay's start. */
  void started(String id, String owner) {
    jdbc.update(
        "update read_model_replay set started_at = utc_timestamp(6)"
            + " where id = ? and owner = ? and status = 'REQUESTED'",
        id,
        owner);
  }

  /**
   * Takes over a replay in progress whose owner stopped beating, with a fresh reset deadline.
   *
   * @return whether {@code owner} now owns it
   */
  boolean takeOver(String id, String owner, Duration lease, Duration resetTimeout) {
    return jdbc.update(
            "update read_model_replay set owner = ?,"
                + " lease_until = timestampadd(microsecond, ?, utc_timestamp(6)),"
                + " reset_deadline = timestampadd(microsecond, ?, utc_timestamp(6))"
                + " where id = ? and in_progress = 1 and lease_until < utc_timestamp(6)",
            owner,
            micros(lease),
            micros(resetTimeout),
            id)
        == 1;
  }

  /**
   * The copies are built: every instance is to stop its processors for the switch, which fails if
   * they are still claimed by others after {@code resetTimeout}.
   *
   * @return false when the replay is no longer {@code owner}'s and REQUESTED
   */
  boolean switching(String id, String owner, Duration resetTimeout) {
    return jdbc.update(
            "update read_model_replay set status = 'SWITCHING', switching_at = utc_timestamp(6),"
                + " reset_deadline = timestampadd(microsecond, ?, utc_timestamp(6))"
                + " where id = ? and owner = ? and status = 'REQUESTED'",
            micros(resetTimeout),
            id,
            owner)
        == 1;
  }

  /**
   * Back to REQUESTED: the owner that took a SWITCHING replay over builds the copies again (what
   * the one before had caught up is not known).
   */
  boolean rebuild(String id, String owner) {
    return jdbc.update(
            "update read_model_replay set status = 'REQUESTED', switching_at = null, folded = 0"
                + " where id = ? and owner = ? and status = 'SWITCHING'",
            id,
            owner)
        == 1;
  }

  /**
   * Whether {@code owner} still owns the replay in progress, holding a shared lock on its row until
   * the caller's transaction ends: a takeover waits for that transaction, so what it writes to the
   * copies is written before the next owner creates them again.
   */
  boolean owns(String id, String owner) {
    return !jdbc.queryForList(
            "select 1 from read_model_replay where id = ? and owner = ? and in_progress = 1"
                + " lock in share mode",
            Integer.class,
            id,
            owner)
        .isEmpty();
  }

  /**
   * Ends a replay that is in status {@code from}.
   *
   * @return whether this call ended it
   */
  boolean finish(String id, String from, String status, String failure) {
    boolean ended =
        jdbc.update(
                "update read_model_replay set status = ?, failure = ?,"
                    + " finished_at = utc_timestamp(6), in_progress = null"
                    + " where id = ? and status = ?",
                status,
                failure == null ? null : abbreviate(failure),
                id,
                from)
            == 1;
    if (ended) {
      ("DONE".equals(status) ? done : failed).increment();
    }
    return ended;
  }

  private Row row(ResultSet rs, int rowNum) throws SQLException {
    return new Row(
        rs.getString("id"),
        rs.getString("status"),
        rs.getLong("head"),
        instant(rs, "requested_at"),
        instant(rs, "started_at"),
        instant(rs, "finished_at"),
        rs.getString("failure"),
        rs.getString("owner"),
        rs.getLong("folded"),
        rs.getBoolean("lease_expired"),
        rs.getBoolean("reset_overdue"),
        Duration.ofNanos(rs.getLong("switching_micros") * 1000));
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    LocalDateTime utc = rs.getObject(column, LocalDateTime.class);
    return utc == null ? null : utc.toInstant(ZoneOffset.UTC);
  }

  private static long micros(Duration duration) {
    return duration.toNanos() / 1000;
  }

  private static String abbreviate(String failure) {
    return failure.length() <= 1000 ? failure : failure.substring(0, 997) + "...";
  }
}
