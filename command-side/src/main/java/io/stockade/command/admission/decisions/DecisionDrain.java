package io.stockade.command.admission.decisions;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateLayout.Partition;
import io.stockade.command.admission.redis.GateProperties;
import io.stockade.command.admission.redis.GateScripts;
import io.stockade.platform.jdbc.DirectParameters;
import io.stockade.platform.jdbc.MultiRowInsert;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.dao.DataAccessException;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Moves the gate's decisions from each partition's decision stream in Redis (reserve.lua appends
 * one entry per decision) into the table {@code gate_decision}, in bulk: one transaction per batch
 * of entries, not per decision. Every instance drains, one at a time per partition (the partition's
 * row of {@code gate_decision_drain}, locked FOR UPDATE SKIP LOCKED). Entries are deleted from the
 * stream once their rows have committed; an instance stopped in between leaves them to be moved
 * again, which the rows' primary key makes harmless.
 *
 * <p>What a Redis that loses its data can take: the entries not yet moved, normally those of the
 * last {@code stockade.decisions.drain-interval} and of the drain under way.
 */
@Component
@ConditionalOnProperty(
    name = "stockade.decisions.enabled",
    havingValue = "true",
    matchIfMissing = true)
public class DecisionDrain {

  private static final Logger log = LoggerFactory.getLogger(DecisionDrain.class);

  private static final String INSERT_HEAD =
      "insert into gate_decision (sku_id, decided_at, entry_seq, gate_partition, epoch, sequence,"
          + " reservation_id, user_id, quantity, outcome, available_after) values ";
  private static final String INSERT_ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  private static final String INSERT_TAIL = " on duplicate key update epoch = epoch";

  private static final RedisScript<List<Object>> GAP = GateScripts.load("gap");

  private final StringRedisTemplate redis;
  private final GateLayout layout;
  private final JdbcTemplate jdbc;
  private final TransactionTemplate transactions;

  /** A restore's transactions: one partition's may write many rows, so no 30 s bound. */
  private final TransactionTemplate restoring;

  private final DecisionLogProperties properties;
  private final long backlog;
  private final Clock clock;

  DecisionDrain(
      StringRedisTemplate redis,
      GateLayout layout,
      JdbcTemplate jdbc,
      PlatformTransactionManager transactions,
      DecisionLogProperties properties,
      GateProperties gate,
      Clock clock,
      MeterRegistry meters) {
    this.redis = redis;
    this.layout = layout;
    this.jdbc = jdbc;
    this.transactions = new TransactionTemplate(transactions);
    this.transactions.setTimeout(30);
    this.restoring = new TransactionTemplate(transactions);
    this.properties = properties;
    this.backlog = gate.decisionBacklog();
    this.clock = clock;
    this.moved =
        Counter.builder("stockade.decisions.moved")
            .description("Gate decisions moved from Redis to the database by this instance")
            .register(meters);
    this.dropped =
        Counter.builder("stockade.decisions.dropped")
            .description(
                "Refusals not logged one by one because a decision stream held its whole backlog,"
                    + " as moved to the database by this instance (each gap entry's count)")
            .register(meters);
    Gauge.builder("stockade.decisions.backlog", this, DecisionDrain::backlog)
        .description("Gate decisions waiting in Redis to be moved to the database, all partitions")
        .register(meters);
    Gauge.builder("stockade.decisions.dropping", this, DecisionDrain::dropping)
        .description(
            "Refusals dropped in the gaps still open in Redis (decision streams that held their"
                + " whole backlog), all partitions")
        .register(meters);
  }

  private final Counter moved;
  private final Counter dropped;

  /** Entries waiting in every partition's stream; NaN while Redis does not answer. */
  double backlog() {
    try {
      long waiting = 0;
      for (Partition partition : layout.partitions()) {
        Long length = redis.opsForStream().size(partition.decisions());
        waiting += length == null ? 0 : length;
      }
      return waiting;
    } catch (DataAccessException e) {
      return Double.NaN;
    }
  }

  /**
   * Refusals counted in the gaps still open, every partition's; NaN while Redis does not answer.
   */
  double dropping() {
    try {
      long count = 0;
      for (Partition partition : layout.partitions()) {
        Object open = redis.opsForHash().get(partition.dropped(), "count");
        count += open == null ? 0 : Long.parseLong(String.valueOf(open));
      }
      return count;
    } catch (DataAccessException e) {
      return Double.NaN;
    }
  }

  @Scheduled(fixedDelayString = "${stockade.decisions.drain-interval:200ms}")
  void drainAll() {
    for (Partition partition : layout.partitions()) {
      try {
        drain(partition);
      } catch (DataAccessException e) {
        log.warn(
            "Decisions of partition {} not moved now; the next drain goes on", partition.tag(), e);
      }
    }
  }

  /**
   * Moves the partition's decisions until its stream is empty (or another instance is moving them).
   *
   * @return how many entries it moved
   */
  int drain(Partition partition) {
    int total = drainStream(partition);
    // A gap of refusals dropped while the stream was full, closed once the stream has room (when no
    // decision has come to close it), and its entries moved at once.
    if (Boolean.TRUE.equals(redis.hasKey(partition.dropped()))) {
      List<Object> reply =
          redis.execute(
              GAP,
              List.of(
                  partition.marker(),
                  partition.sequence(),
                  partition.decisions(),
                  partition.dropped()),
              String.valueOf(partition.index()),
              String.valueOf(backlog));
      if (reply != null && !reply.isEmpty() && ((Number) reply.get(0)).intValue() == 1) {
        total += drainStream(partition);
      }
    }
    return total;
  }

  private int drainStream(Partition partition) {
    int total = 0;
    int batch;
    do {
      // Most drains find nothing: they cost Redis one XLEN and the database nothing.
      Long waiting = redis.opsForStream().size(partition.decisions());
      if (waiting == null || waiting == 0) {
        break;
      }
      Integer done = transactions.execute(status -> drainBatch(partition));
      batch = done == null ? 0 : done;
      total += batch;
      moved.increment(batch);
    } while (batch == properties.drainBatch());
    return total;
  }

  private int drainBatch(Partition partition) {
    jdbc.update(
        "insert ignore into gate_decision_drain (partition_tag, drained, changed_at)"
            + " values (?, 0, utc_timestamp(6))",
        partition.tag());
    List<String> locked =
        jdbc.queryForList(
            "select partition_tag from gate_decision_drain where partition_tag = ?"
                + " for update skip locked",
            String.class,
            partition.tag());
    if (locked.isEmpty()) {
      return 0; // Another instance is moving them.
    }
    List<MapRecord<String, Object, Object>> entries =
        redis
            .opsForStream()
            .range(
                partition.decisions(),
                Range.unbounded(),
                Limit.limit().count(properties.drainBatch()));
    if (entries == null || entries.isEmpty()) {
      return 0;
    }
    List<Object[]> rows = new ArrayList<>(entries.size());
    for (MapRecord<String, Object, Object> entry : entries) {
      rows(partition, entry, rows);
    }
    insert(rows);
    long highest = 0;
    long gaps = 0;
    for (Object[] row : rows) {
      highest = Math.max(highest, (Long) row[5]);
      if (DROPPED.equals(row[9])) {
        gaps += (Integer) row[8];
      }
    }
    long droppedInBatch = gaps;
    RecordId last = entries.get(entries.size() - 1).getId();
    jdbc.update(
        "update gate_decision_drain set last_entry = ?, drained = drained + ?,"
            + " max_sequence = greatest(max_sequence, ?), changed_at = utc_timestamp(6)"
            + " where partition_tag = ?",
        last.getValue(),
        entries.size(),
        highest,
        partition.tag());
    // Deleted after the rows commit: a failure in between leaves entries that are moved again.
    RecordId[] ids = entries.stream().map(MapRecord::getId).toArray(RecordId[]::new);
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void afterCommit() {
            redis.opsForStream().delete(partition.decisions(), ids);
            dropped.increment(droppedInBatch);
          }
        });
    return entries.size();
  }

  /** The outcome of a gap's row: its quantity is the number of the user's refusals dropped. */
  static final String DROPPED = "REFUSALS_DROPPED";

  /**
   * The rows of one entry: {@code d = "<sequence> <epoch> <outcome> <userId> <reservationId>"} then
   * {@code "<skuId> <quantity> <availableAfter>"} per line (reserve.lua); a gap's entry has {@code
   * -} for its reservation and available units, and the refusals dropped as its quantity.
   */
  public static void rows(
      Partition partition, MapRecord<String, Object, Object> entry, List<Object[]> rows) {
    String[] fields = String.valueOf(entry.getValue().get("d")).split(" ");
    RecordId id = entry.getId();
    String outcome =
        switch (fields[2]) {
          case "A" -> "ADMITTED";
          case "I" -> "INSUFFICIENT_STOCK";
          case "L" -> "PURCHASE_LIMIT_EXCEEDED";
          case "N" -> "SALE_NOT_OPEN";
          case "C" -> "SALE_CLOSED";
          case "P" -> "SALE_PAUSED";
          case "W" -> "WITHDRAWN";
          case "G" -> DROPPED;
          default -> throw new IllegalStateException("Decision entry " + id + ": " + fields[2]);
        };
    for (int line = 5; line + 2 < fields.length; line += 3) {
      rows.add(
          new Object[] {
            fields[line],
            id.getTimestamp(),
            id.getSequence(),
            partition.index(),
            Long.parseLong(fields[1]),
            Long.parseLong(fields[0]),
            "-".equals(fields[4]) ? "" : fields[4],
            fields[3],
            Integer.parseInt(fields[line + 1]),
            outcome,
            "-".equals(fields[line + 2]) ? null : Long.parseLong(fields[line + 2])
          });
    }
  }

  /** Deletes the decisions older than {@code stockade.decisions.retention}, a batch at a time. */
  @Scheduled(
      fixedDelayString = "${stockade.decisions.retention-interval:1m}",
      initialDelayString = "${stockade.decisions.retention-interval:1m}")
  void forgetOld() {
    long before = clock.millis() - properties.retention().toMillis();
    try {
      int deleted;
      do {
        deleted =
            jdbc.update(
                "delete from gate_decision where decided_at < ? order by decided_at limit ?",
                before,
                RETENTION_BATCH);
      } while (deleted == RETENTION_BATCH);
    } catch (DataAccessException e) {
      log.warn("Old decisions not deleted now; the next pass goes on", e);
    }
  }

  private static final int RETENTION_BATCH = 10_000;

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
    insert(rows);
    return rows.size();
  }

  /**
   * The admitted decisions of epochs before {@code epoch} still in the partition's stream, as
   * {@code "<reservationId> <skuId>"}: the drain moves them.
   */
  private Set<String> admittedInStream(Partition partition, long epoch) {
    Set<String> waiting = new HashSet<>();
    forEachEntry(
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

  /** Every entry of the partition's stream, oldest first, split into its fields. */
  private static void forEachEntry(
      StringRedisTemplate redis, Partition partition, Consumer<String[]> action) {
    Range<String> range = Range.unbounded();
    while (true) {
      List<MapRecord<String, Object, Object>> entries =
          redis
              .opsForStream()
              .range(partition.decisions(), range, Limit.limit().count(STREAM_CHUNK));
      if (entries == null || entries.isEmpty()) {
        return;
      }
      for (MapRecord<String, Object, Object> entry : entries) {
        action.accept(String.valueOf(entry.getValue().get("d")).split(" "));
      }
      if (entries.size() < STREAM_CHUNK) {
        return;
      }
      range =
          Range.rightUnbounded(
              Range.Bound.exclusive(entries.get(entries.size() - 1).getId().getValue()));
    }
  }

  private static final int STREAM_CHUNK = 10_000;

  /**
   * Writes rows of the log in multi-row inserts: a JDBC batch of single-row ones took 3 to 4 times
   * as long (5,000 rows: 170 to 330 ms against 40 to 100 ms, MariaDB Connector/J 3.5 on this
   * machine's MariaDB), and a rebuild's restore of 200,000 decisions by one batch about 40 s.
   */
  private void insert(List<Object[]> rows) {
    insert(jdbc, rows, ROWS_PER_INSERT);
  }

  /** {@link #insert(List)}, {@code rowsPerInsert} rows to a statement. */
  static void insert(JdbcTemplate jdbc, List<Object[]> rows, int rowsPerInsert) {
    for (int start = 0; start < rows.size(); start += rowsPerInsert) {
      List<Object[]> chunk = rows.subList(start, Math.min(rows.size(), start + rowsPerInsert));
      List<Object> args = new ArrayList<>();
      chunk.forEach(row -> args.addAll(Arrays.asList(row)));
      DirectParameters.update(
          jdbc,
          MultiRowInsert.sql(INSERT_HEAD, INSERT_ROW, chunk.size()) + INSERT_TAIL,
          args.toArray());
    }
  }

  private static final int RESTORE_CHUNK = 500;

  /** Rows per insert: 11,000 parameters, within the protocol's limit of 65,535. */
  private static final int ROWS_PER_INSERT = 1000;

  /** How far an instance's clock and a Redis's may differ, for {@link #restoreOwed}. */
  private static final long CLOCKS = 60_000;

  public int batch() {
    return properties.drainBatch();
  }

  /**
   * The highest sequence number of the decisions still in the partition's stream, or 0: not the
   * last entry's, which may be a withdrawal or a later part of an order of several partitions, both
   * with an older admission's number.
   */
  public static long highestInStream(StringRedisTemplate redis, Partition partition) {
    long[] highest = {0};
    forEachEntry(
        redis, partition, fields -> highest[0] = Math.max(highest[0], Long.parseLong(fields[0])));
    return highest[0];
  }

  /** For the rebuild: the highest sequence number moved to the decision log, of any partition. */
  public long highestSequence() {
    Long highest =
        jdbc.queryForObject("select max(max_sequence) from gate_decision_drain", Long.class);
    return highest == null ? 0 : highest;
  }
}
