package io.stockade.command.admission;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The gate's epoch as the database keeps it (table {@code gate_epoch}): the fence that keeps
 * admissions of an ended epoch out of the record, and the lock that lets one instance rebuild the
 * gate while the others wait.
 */
@Component
class GateEpochs implements AdmissionFence {

  /** What the row says. */
  record Row(long epoch, String state, String redisRunId, String owner, Instant changedAt) {

    boolean open() {
      return OPEN.equals(state);
    }

    /** Another instance is rebuilding and was heard from within the lease. */
    boolean rebuiltByOther(String me, Instant now, Duration lease) {
      return REBUILDING.equals(state) && !me.equals(owner) && changedAt.plus(lease).isAfter(now);
    }
  }

  static final String OPEN = "OPEN";
  static final String REBUILDING = "REBUILDING";

  private final JdbcTemplate jdbc;

  GateEpochs(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  Row read() {
    return jdbc.queryForObject(
        "select epoch, state, redis_run_id, owner, changed_at from gate_epoch where id = 1",
        (rs, i) ->
            new Row(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getTimestamp(5).toInstant()));
  }

  /**
   * Reads the row under a shared lock, held until the caller's transaction ends: a rebuild cannot
   * begin while an admission of the current epoch is being stored, and none of an earlier epoch
   * gets through once it has.
   */
  @Override
  public void check(long gateEpoch) {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new IllegalStateException("The admission fence needs the storing transaction");
    }
    Row row =
        jdbc.queryForObject(
            "select epoch, state from gate_epoch where id = 1 lock in share mode",
            (rs, i) -> new Row(rs.getLong(1), rs.getString(2), null, null, null));
    if (!row.open() || row.epoch() != gateEpoch) {
      throw new GateEpochChangedException(gateEpoch, row.epoch(), row.state());
    }
  }

  /**
   * Begins a rebuild: moves the row from what {@code seen} says to the next epoch, REBUILDING,
   * owned by {@code me}. The update waits until no admission of the old epoch is being stored.
   *
   * @return the new epoch, or empty when the row changed since {@code seen} (someone else began)
   */
  OptionalLong claim(Row seen, String me, Instant now) {
    int updated =
        jdbc.update(
            "update gate_epoch set epoch = epoch + 1, state = ?, owner = ?, changed_at = ?"
                + " where id = 1 and epoch = ? and state = ?",
            REBUILDING,
            me,
            Timestamp.from(now),
            seen.epoch(),
            seen.state());
    return updated == 1 ? OptionalLong.of(seen.epoch() + 1) : OptionalLong.empty();
  }

  /**
   * Ends a rebuild: the gate of {@code epoch} is in the Redis server {@code runId}.
   *
   * @return false when another instance took the rebuild over meanwhile
   */
  boolean open(long epoch, String runId, String me, Instant now) {
    return jdbc.update(
            "update gate_epoch set state = ?, redis_run_id = ?, changed_at = ?"
                + " where id = 1 and epoch = ? and owner = ? and state = ?",
            OPEN,
            runId,
            Timestamp.from(now),
            epoch,
            me,
            REBUILDING)
        == 1;
  }
}
