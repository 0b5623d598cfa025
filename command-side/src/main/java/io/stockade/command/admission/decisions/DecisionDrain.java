package io.stockade.command.admission.decisions;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateLayout.Partition;
import io.stockade.command.admission.redis.GateProperties;
import io.stockade.command.admission.redis.GateScripts;
import io.stockade.platform.jdbc.DirectParameters;
import io.stockade.platform.jdbc.MultiRowInsert;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 * last {@code stockade.decisions.drain-interval} and of the drain under way ({@link
 * DecisionLogRestores} gives the log back the admitted ones after a rebuild).
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
  }

  private final Counter moved;
  private final Counter dropped;

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
    insert(jdbc, rows);
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

  /** Every entry of the partition's stream, oldest first, split into its fields. */
  static void forEachEntry(
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
  static void insert(JdbcTemplate jdbc, List<Object[]> rows) {
    insert(jdbc, rows, ROWS_PER_INSERT);
  }

  /** {@link #insert(JdbcTemplate, List)}, {@code rowsPerInsert} rows to a statement. */
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

  /** Rows per insert: 11,000 parameters, within the protocol's limit of 65,535. */
  private static final int ROWS_PER_INSERT = 1000;

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
