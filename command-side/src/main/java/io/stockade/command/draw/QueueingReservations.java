package io.stockade.command.draw;

import io.stockade.api.draw.DrawSeed;
import io.stockade.api.draw.ReservationQueued;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.draw.DrawQueue.Enqueued;
import io.stockade.platform.eventstore.EventRows;
import io.stockade.platform.jdbc.DirectParameters;
import io.stockade.platform.jdbc.MultiRowInsert;
import jakarta.annotation.PreDestroy;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.axonframework.config.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Queues reservations for their draws many to a transaction (group commit, as new reservations are
 * stored): requests wait while a transaction commits and the next one takes them all (up to a
 * bound), with one read of their draws under a shared lock and one insert of each table's rows;
 * each request is answered once its transaction has committed. A batch that hits a reservation
 * queued before is written again one reservation at a time ({@link DrawQueue#enqueue}), so that
 * only that one is compared with what was queued.
 */
@Component
public class QueueingReservations {

  private static final Logger log = LoggerFactory.getLogger(QueueingReservations.class);

  private static final String QUEUE_COLUMNS =
      "insert into draw_queue (reservation_id, opens_at, ticket, user_id, hold_ms, fingerprint,"
          + " reservation_lines, queued_at) values ";
  private static final String QUEUE_ROW = "(?, ?, ?, ?, ?, ?, ?, ?)";
  private static final String SKU_COLUMNS =
      "insert into draw_queue_sku (opens_at, sku_id, reservation_id) values ";
  private static final String SKU_ROW = "(?, ?, ?)";

  private final DrawQueue queue;
  private final JdbcTemplate jdbc;
  private final TransactionTemplate transactions;
  private final EventRows events;
  private final int batchSize;
  private final Duration answerWithin;
  private final BlockingQueue<Entry> waiting = new LinkedBlockingQueue<>();
  private final List<Thread> writers = new ArrayList<>();
  private volatile boolean open = true;

  QueueingReservations(
      DrawQueue queue,
      JdbcTemplate jdbc,
      DataSource dataSource,
      Configuration axon,
      @Value("${stockade.draw.queueing.batch-size:64}") int batchSize,
      @Value("${stockade.draw.queueing.writers:2}") int writers,
      @Value("${spring.transaction.default-timeout:5s}") Duration timeout) {
    this.queue = queue;
    this.jdbc = jdbc;
    JdbcTransactionManager manager = new JdbcTransactionManager(dataSource);
    manager.setDefaultTimeout((int) Math.max(1, timeout.toSeconds()));
    this.transactions = new TransactionTemplate(manager);
    this.events = new EventRows(axon::eventSerializer);
    this.batchSize = batchSize;
    this.answerWithin = timeout.multipliedBy(2).plusSeconds(5);
    for (int i = 0; i < writers; i++) {
      Thread writer = new Thread(this::write, "queue-writer-" + i);
      writer.setDaemon(true);
      writer.start();
      this.writers.add(writer);
    }
  }

  /**
   * Queues the reservation for the draw at {@code opensAt}, or finds it queued: committed when this
   * returns QUEUED.
   *
   * @param lines merged, one per SKU
   * @throws QueueingFailedException when it could not be written (the database failed)
   */
  public Enqueued enqueue(
      String reservationId,
      String userId,
      List<ReservationLine> lines,
      Duration hold,
      String fingerprint,
      Instant opensAt,
      Instant queuedAt) {
    DrawSeed seed = queue.seed(opensAt);
    Entry entry =
        new Entry(
            reservationId,
            userId,
            lines,
            hold,
            fingerprint,
            opensAt,
            queuedAt,
            seed.ticket(reservationId),
            events.row(
                ReservationQueued.AGGREGATE_TYPE,
                ReservationQueued.streamId(reservationId),
                0,
                new ReservationQueued(
                    reservationId,
                    userId,
                    lines,
                    hold.toMillis(),
                    opensAt,
                    queue.commitment(opensAt),
                    queuedAt)));
    if (!open) {
      throw new QueueingFailedException(new IllegalStateException("Shutting down"));
    }
    waiting.add(entry);
    try {
      return entry.outcome.get(answerWithin.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new QueueingFailedException(e.getCause());
    } catch (TimeoutException e) {
      throw new QueueingFailedException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QueueingFailedException(e);
    }
  }

  private void write() {
    List<Entry> batch = new ArrayList<>(batchSize);
    while (open || !waiting.isEmpty()) {
      try {
        Entry first = waiting.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        waiting.drainTo(batch, batchSize - 1);
        write(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException | Error e) {
        log.error("Queue writer failed; its batch is answered as not queued", e);
        batch.forEach(entry -> entry.outcome.completeExceptionally(e));
      } finally {
        batch.clear();
      }
    }
  }

  /** Writes the batch in one transaction; one at a time when a row was refused (queued before). */
  private void write(List<Entry> batch) {
    Map<Entry, Enqueued> answers;
    try {
      answers = transactions.execute(status -> insert(batch));
    } catch (DataIntegrityViolationException queuedBefore) {
      batch.forEach(this::writeAlone);
      return;
    }
    answers.forEach((entry, answer) -> entry.outcome.complete(answer));
  }

  /**
   * Writes one entry in a transaction of its own; queued before (its row's key taken), it is
   * compared with what was queued.
   */
  private void writeAlone(Entry entry) {
    try {
      entry.outcome.complete(transactions.execute(status -> insert(List.of(entry))).get(entry));
    } catch (DuplicateKeyException queuedBefore) {
      entry.outcome.complete(
          queue
              .find(entry.reservationId)
              .map(
                  queued ->
                      queued.fingerprint().equals(entry.fingerprint)
                          ? Enqueued.QUEUED
                          : Enqueued.REUSED)
              .orElse(Enqueued.REUSED));
    } catch (RuntimeException e) {
      entry.outcome.completeExceptionally(e);
    }
  }

  /** The batch's rows, those of draws not started; answers every entry. */
  private Map<Entry, Enqueued> insert(List<Entry> batch) {
    Set<Long> openings = new LinkedHashSet<>();
    batch.forEach(entry -> openings.add(entry.opensAt.toEpochMilli()));
    Map<Long, Boolean> started = new HashMap<>();
    jdbc.query(
        MultiRowInsert.sql(
                "select opens_at, started_at is not null from draw_seed where opens_at in (",
                "?",
                openings.size())
            + ") lock in share mode",
        rs -> {
          started.put(rs.getLong(1), rs.getBoolean(2));
        },
        openings.toArray());
    Map<Entry, Enqueued> answers = new HashMap<>();
    List<Entry> queued = new ArrayList<>(batch.size());
    for (Entry entry : batch) {
      if (started.getOrDefault(entry.opensAt.toEpochMilli(), true)) {
        answers.put(entry, Enqueued.DRAW_STARTED);
      } else {
        answers.put(entry, Enqueued.QUEUED);
        queued.add(entry);
      }
    }
    if (queued.isEmpty()) {
      return answers;
    }
    List<Object> rows = new ArrayList<>(queued.size() * 8);
    List<Object> skus = new ArrayList<>();
    List<Object> eventRows = new ArrayList<>(queued.size() * 9);
    int skuRows = 0;
    for (Entry entry : queued) {
      long opening = entry.opensAt.toEpochMilli();
      Collections.addAll(
          rows,
          entry.reservationId,
          opening,
          entry.ticket,
          entry.userId,
          entry.hold.toMillis(),
          entry.fingerprint,
          DrawQueue.encode(entry.lines),
          Timestamp.from(entry.queuedAt));
      for (ReservationLine line : entry.lines) {
        Collections.addAll(skus, opening, line.skuId(), entry.reservationId);
        skuRows++;
      }
      Collections.addAll(eventRows, entry.event);
    }
    DirectParameters.update(
        jdbc, MultiRowInsert.sql(QUEUE_COLUMNS, QUEUE_ROW, queued.size()), rows.toArray());
    DirectParameters.update(
        jdbc, MultiRowInsert.sql(SKU_COLUMNS, SKU_ROW, skuRows), skus.toArray());
    DirectParameters.update(
        jdbc,
        MultiRowInsert.sql(EventRows.COLUMNS, EventRows.ROW, queued.size()),
        eventRows.toArray());
    return answers;
  }

  @PreDestroy
  void close() throws InterruptedException {
    open = false;
    for (Thread writer : writers) {
      writer.join(answerWithin.toMillis());
    }
    Entry left;
    while ((left = waiting.poll()) != null) {
      left.outcome.completeExceptionally(new IllegalStateException("Shutting down"));
    }
  }

  private static final class Entry {

    final String reservationId;
    final String userId;
    final List<ReservationLine> lines;
    final Duration hold;
    final String fingerprint;
    final Instant opensAt;
    final Instant queuedAt;
    final String ticket;
    final Object[] event;
    final CompletableFuture<Enqueued> outcome = new CompletableFuture<>();

    Entry(
        String reservationId,
        String userId,
        List<ReservationLine> lines,
        Duration hold,
        String fingerprint,
        Instant opensAt,
        Instant queuedAt,
        String ticket,
        Object[] event) {
      this.reservationId = reservationId;
      this.userId = userId;
      this.lines = lines;
      this.hold = hold;
      this.fingerprint = fingerprint;
      this.opensAt = opensAt;
      this.queuedAt = queuedAt;
      this.ticket = ticket;
      this.event = event;
    }
  }

  /** A reservation could not be queued: nothing of it was (its transaction rolled back). */
  public static final class QueueingFailedException extends RuntimeException {

    QueueingFailedException(Throwable cause) {
      super(cause.getMessage(), cause);
    }
  }
}
