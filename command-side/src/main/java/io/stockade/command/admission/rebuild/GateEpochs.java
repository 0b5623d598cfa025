package io.stockade.command.admission.rebuild;

import io.stockade.command.admission.AdmissionFence;
import io.stockade.command.admission.GateEpochChangedException;
import java.time.Duration;
import java.util.OptionalLong;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The gate's epoch as the database keeps it (table {@code gate_epoch}): the fence that keeps
 * admissions of an ended epoch out of the record, and the lock that lets one instance rebuild the
 * gate while the others wait.
 *
 * <p>The rebuild's lease is judged by the database's clock alone: {@code changed_at} is written as
 * the database's {@code CURRENT_TIMESTAMP} and compared with it, so no instance's clock, however
 * far off, can make a live lease look expired or a dead one live.
 */
@Component
class GateEpochs implements AdmissionFence {

  /**
   * What the row says.
   *
   * @param silence how long ago, by the database's clock, the row last changed or its rebuild was
   *     renewed
   */
  record Row(long epoch, String state, String redisRunId, String owner, Duration silence) {

    boolean open() {
      return OPEN.equals(state);
    }

    /** {@code me} is rebuilding: an attempt that failed goes on in the same epoch. */
    boolean rebuiltBy(String me) {
      return REBUILDING.equals(state) && me.equals(owner);
    }

    /** Another instance is rebuilding and was heard from within the lease. */
    boolean rebuiltByOther(String me, Duration lease) {
      return REBUILDING.equals(state) && !me.equals(owner) && silence.compareTo(lease) < 0;
    }
  }

  /** Microseconds since the row last changed, by the database's clock. */
  private static final String SILENCE =
      "timestampdiff(microsecond, changed_at, current_timestamp(6))";

  static final String OPEN = "OPEN";
  static final String REBUILDING = "REBUILDING";

  private final JdbcTemplate jdbc;

  GateEpochs(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  Row read() {
    return jdbc.queryForObject(
        "select epoch, state, redis_run_id, owner, " + SILENCE + " from gate_epoch where id = 1",
        (rs, i) ->
            new Row(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                Duration.ofNanos(rs.getLong(5) * 1000)));
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
   * owned by {@code me}, unless another instance's rebuild was heard from within {@code lease}. The
   * update waits until no admission of the old epoch is being stored.
   *
   * @return the new epoch, or empty when the row changed since {@code seen} (someone else began) or
   *     another instance's rebuild is still alive
   */
  OptionalLong claim(Row seen, String me, Duration lease) {
    int updated =
        jdbc.update(
            "update gate_epoch set epoch = epoch + 1, state = ?, owner = ?,"
                + " changed_at = current_timestamp(6)"
                + " where id = 1 and epoch = ? and state = ?"
                + " and (state <> ? or owner = ? or "
                + SILENCE
                + " >= ?)",
            REBUILDING,
            me,
            seen.epoch(),
            seen.state(),
            REBUILDING,
            me,
            lease.toNanos() / 1000);
    return updated == 1 ? OptionalLong.of(seen.epoch() + 1) : OptionalLong.empty();
  }

  /**
   * Renews {@code me}'s lease on the rebuild of {@code epoch}.
   *
   * @return false when another instance took the rebuild over
   */
  boolean renew(long epoch, String me) {
    return jdbc.update(
            "update gate_epoch set changed_at = current_timestamp(6)"
                + " where id = 1 and epoch = ? and owner = ? and state = ?",
            epoch,
            me,
            REBUILDING)
        == 1;
  }

  /**
   * Ends a rebuild: the gate of {@code epoch} is in the Redis server {@code runId}.
   *
   * @return false when another instance took the rebuild over meanwhile
   */
  boolean open(long epoch, String runId, String me) {
    return jdbc.update(
            "update gate_epoch set state = ?, redis_run_id = ?, changed_at = current_timestamp(6)"
                + " where id = 1 and epoch = ? and owner = ? and state = ?",
            OPEN,
            runId,
            epoch,
            me,
            REBUILDING)
        == 1;
  }
}
