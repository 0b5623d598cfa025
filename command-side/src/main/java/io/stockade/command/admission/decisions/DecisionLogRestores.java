package io.stockade.command.admission.decisions;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.redis.GateLayout.Partition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The restores of the decision log that rebuilds of the gate owe: the admitted decisions a Redis
 * that lost its data may have taken with it before {@link DecisionDrain} moved them. Records a
 * restore as owed before the rebuilt gate opens, hands out the ones overdue, and writes the
 * decisions the log lacks, holding the partition's drain lock.
 */
@Component
@ConditionalOnProperty(
    name = "stockade.decisions.enabled",
    havingValue = "true",
    matchIfMissing = true)
public class DecisionLogRestores {

  private final StringRedisTemplate redis;
  private final JdbcTemplate jdbc;
  private final TransactionTemplate transactions;

  /** A restore's transactions: one partition's may write many rows, so no 30 s bound. */
  private final TransactionTemplate restoring;

  DecisionLogRestores(
      StringRedisTemplate redis, JdbcTemplate jdbc, PlatformTransactionManager transactions) {
    this.redis = redis;
    this.jdbc = jdbc;
    this.transactions = new TransactionTemplate(transactions);
    this.transactions.setTimeout(30);
    this.restoring = new TransactionTemplate(transactions);
  }

  /**
   * An admitted decision as its StockReserved tells it, for one line; {@code epoch} the gate epoch
   * it was admitted in.
   */
  public record Admitted(
      Partition partition,
      String reservationId,
      String userId,
      ReservationLine line,
      long sequence,
      long epoch,
      Instant admittedAt) {}

  /** A restore of the log a rebuild of gate epoch {@code epoch} owes, by partition tag. */
  public record Restore(long epoch, Map<String, Long> since) {}

  /**
   * Records that the rebuild of gate epoch {@code epoch} owes the log the admitted decisions of the
   * partitions {@code tags} that Redis may have lost, due {@code within} from now. Called before
   * the gate opens, so that the restore is done even if this instance stops first.
   *
   * <p>Every partition of a rebuilt gate is owed one: a Redis that came back from a snapshot or a
   * lagging replica keeps its decision streams without their newest entries, and nothing in Redis
   * tells which entries it never had.
   *
   * <p>Each partition's is owed since its last moved entry, less a minute for the clocks'
   * differences (an admission's time is its instance's clock, an entry's its Redis's); since 0 for
   * a partition never drained. That entry is read now: once the gate is open the drain moves the
   * new stream's entries and the partition's last entry is no longer the lost stream's. A restore
   * this or an earlier epoch still owes for the same partitions is taken over, its earlier times
   * kept, so that two restores do not write the same decisions twice.
   *
   * @return the restore owed
   */
  public Restore restoreOwed(long epoch, Set<String> tags, Duration within) {
    return transactions.execute(
        status -> {
          Map<String, Long> since = new HashMap<>();
          tags.forEach(tag -> since.put(tag, 0L));
          jdbc.query(
              "select partition_tag, last_entry from gate_decision_drain",
              row -> {
                String last = row.getString(2);
                if (since.containsKey(row.getString(1)) && last != null) {
                  since.put(
                      row.getString(1),
                      Long.parseLong(last.substring(0, last.indexOf('-'))) - CLOCKS);
                }
              });
          jdbc.query(
              "select partition_tag, since_ms from gate_decision_restore where epoch <= ?"
                  + " for update",
              row -> {
                if (since.containsKey(row.getString(1))) {
                  since.merge(row.getString(1), row.getLong(2), Math::min);
                }
              },
              epoch);
          since.forEach(
              (tag, from) -> {
                jdbc.update(
                    "delete from gate_decision_restore where epoch <= ? and partition_tag = ?",
                    epoch,
                    tag);
                jdbc.update(
                    "insert into gate_decision_restore (epoch, partition_tag, since_ms, due_at)"
                        + " values (?, ?, ?, utc_timestamp(6) + interval ? microsecond)",
                    epoch,
                    tag,
                    from,
                    within.toNanos() / 1000);
              });
          return new Restore(epoch, since);
        });
  }

  /**
   * Takes up the owed restores that are overdue, moving each one's due time {@code within} on (an
   * instance that takes one up and stops leaves it overdue again): none if another instance took
   * them first.
   */
  public List<Restore> takeOverdueRestores(Duration within) {
    Map<Long, Map<String, Long>> overdue = new TreeMap<>();
    jdbc.query(
        "select epoch, partition_tag, since_ms from gate_decision_restore"
            + " where due_at < utc_timestamp(6)",
        row -> {
          overdue
              .computeIfAbsent(row.getLong(1), epoch -> new HashMap<>())
              .put(row.getString(2), row.getLong(3));
        });
    List<Restore> taken = new ArrayList<>();
    overdue.forEach(
        (epoch, since) -> {
          int moved =
              jdbc.update(
                  "update gate_decision_restore set due_at = utc_timestamp(6) + interval ?"
                      + " microsecond where epoch = ? and due_at < utc_timestamp(6)",
                  within.toNanos() / 1000,
                  epoch);
          if (moved > 0) {
            taken.add(new Restore(epoch, since));
          }
        });
    return taken;
  }

  /** The restore is done: its rows go. */
  public void restored(Restore restore) {
    jdbc.update("delete from gate_decision_restore where epoch = ?", restore.epoch());
  }

  /**
   * Writes the admitted decisions the log lacks among {@code admitted}: of the partitions {@code
   * restore} names, admitted since the time it gives them and before its epoch (what the gate
   * admits once rebuilt reaches the log through the streams), neither in the log nor still in the
   * partition's stream (the drain moves those). Their {@code available_after} is unknown (NULL),
   * they sort by their admission's time, and their epoch is the rebuild's negated. One transaction
   * per partition, holding the partition's drain lock: a drain that read entries before Redis lost
   * them and commits late commits before this looks, and none moves the stream while it does.
   * Writing the same restore twice writes each decision once.
   *
   * @return how many rows it wrote
   */
  public int restoreAdmitted(Restore restore, List<Admitted> admitted) {
    long epoch = restore.epoch();
    Map<String, Long> since = restore.since();
    Map<Partition, List<Admitted>> candidates = new TreeMap<>(BY_INDEX);
    for (Admitted a : admitted) {
      Long from = since.get(a.partition().tag());
      if (from != null && a.admittedAt().toEpochMilli() >= from && a.epoch() < epoch) {
        candidates.computeIfAbsent(a.partition(), partition -> new ArrayList<>()).add(a);
      }
    }
    int written = 0;
    for (Map.Entry<Partition, List<Admitted>> partition : candidates.entrySet()) {
      Integer rows =
          restoring.execute(
              status -> restorePartition(epoch, partition.getKey(), partition.getValue()));
      written += rows == null ? 0 : rows;
    }
    return written;
  }

  private static final Comparator<Partition> BY_INDEX = Comparator.comparingInt(Partition::index);

  private int restorePartition(long epoch, Partition partition, List<Admitted> admitted) {
    jdbc.update(
        "insert ignore into gate_decision_drain (partition_tag, drained, changed_at)"
            + " values (?, 0, utc_timestamp(6))",
        partition.tag());
    jdbc.queryForList(
        "select partition_tag from gate_decision_drain where partition_tag = ? for update",
        String.class,
        partition.tag());
    // Read after the lock: a drain deletes entries from the stream only once their rows committed,
    // so each decision is in the stream now or in the log below.
    Set<String> logged = admittedInStream(partition, epoch);
    // In time order: a chunk of them then spans a short time, which bounds what its look-up reads.
    List<Admitted> candidates =
        admitted.stream()
            .sorted(
                Comparator.comparing(Admitted::admittedAt).thenComparingLong(Admitted::sequence))
            .toList();
    // Which of them the log has, looked up by user (its index) a chunk at a time, within the
    // chunk's times give or take the clocks' differences: a user's other decisions are not read.
    for (int start = 0; start < candidates.size(); start += RESTORE_CHUNK) {
      List<Admitted> chunk =
          candidates.subList(start, Math.min(candidates.size(), start + RESTORE_CHUNK));
      List<Object> args = new ArrayList<>();
      chunk.stream().map(Admitted::userId).distinct().forEach(args::add);
      String users = String.join(", ", Collections.nCopies(args.size(), "?"));
      args.add(chunk.get(0).admittedAt().toEpochMilli() - CLOCKS);
      args.add(chunk.get(chunk.size() - 1).admittedAt().toEpochMilli() + CLOCKS);
      jdbc.query(
          "select reservation_id, sku_id from gate_decision where user_id in ("
              + users
              + ") and decided_at between ? and ? and outcome = 'ADMITTED'",
          row -> {
            logged.add(row.getString(1) + " " + row.getString(2));
          },
          args.toArray());
    }
    // In an order of their own (epoch: the rebuild's, negated), written at once in time order:
    // rows are only ever added after the newest of their SKU, bucket and epoch (the query side
    // counts pages from marks along each such order).
    List<Object[]> rows = new ArrayList<>();
    for (Admitted a : candidates) {
      if (!logged.add(a.reservationId() + " " + a.line().skuId())) {
        continue;
      }
      rows.add(
          new Object[] {
            a.line().skuId(),
            a.admittedAt().toEpochMilli(),
            a.sequence(),
            a.partition().index(),
            -epoch,
            a.sequence(),
            a.reservationId(),
            a.userId(),
            a.line().quantity(),
            "ADMITTED",
            null
          });
    }
    DecisionDrain.insert(jdbc, rows);
    return rows.size();
  }

  /**
   * The admitted decisions of epochs before {@code epoch} still in the partition's stream, as
   * {@code "<reservationId> <skuId>"}: the drain moves them.
   */
  private Set<String> admittedInStream(Partition partition, long epoch) {
    Set<String> waiting = new HashSet<>();
    DecisionDrain.forEachEntry(
        redis,
        partition,
        fields -> {
          if ("A".equals(fields[2]) && Long.parseLong(fields[1]) < epoch) {
            for (int line = 5; line + 2 < fields.length; line += 3) {
              waiting.add(fields[4] + " " + fields[line]);
            }
          }
        });
    return waiting;
  }

  private static final int RESTORE_CHUNK = 500;

  /** How far an instance's clock and a Redis's may differ, for {@link #restoreOwed}. */
  private static final long CLOCKS = 60_000;
}
