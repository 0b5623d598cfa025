package io.stockade.command.reservation;

import io.stockade.api.reservation.ReserveStockCommand;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionFence;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.admission.GateEpochChangedException;
import jakarta.annotation.PreDestroy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;

/**
 * Stores new reservations: each one's {@code StockReserved}, the first event of its stream, and its
 * expiry's due time, many reservations to a transaction.
 *
 * <p>This is the only way a reservation's first event is written: the {@link Reservation} aggregate
 * has no handler that creates one. A new reservation's stream has nothing to load and nothing to
 * lock: the event store's unique (stream, sequence) key already lets only one first event in, and
 * the gate, not an aggregate, decided. So the event is appended as Axon appends an aggregate's
 * first event (the aggregate's type, the stream, sequence 0, metadata from the same correlation
 * data providers, serialized by Axon's event serializer into the columns Axon's JPA engine writes),
 * in group commits that an aggregate per command could not make. Confirm, release and expiry load
 * the aggregate from that stream.
 *
 * <p>Group commit: requests queue up while a transaction commits, and the next transaction takes
 * them all (up to a bound), with one fence check for them and one insert of their events; each
 * request is answered once its transaction has committed. One request alone is written at once,
 * with no wait for others. A batch that hits a duplicate stream is written again one reservation
 * per transaction, so that only the duplicate is answered as already recorded. Global indexes are
 * still AUTO_INCREMENT values handed out at insert, in the transactions' order, as before.
 */
@Component
class StoringReservations {

  private static final Logger log = LoggerFactory.getLogger(StoringReservations.class);

  private final PlatformTransactionManager transactions;
  private final JdbcTemplate jdbc;
  private final AdmissionFence fence;
  private final NewReservationRows rows;
  private final int batchSize;
  private final Duration patience;
  private final Duration answerWithin;
  private final BlockingQueue<Entry> queue = new LinkedBlockingQueue<>();
  private final List<Thread> writers = new ArrayList<>();
  private volatile boolean open = true;

  StoringReservations(
      DataSource dataSource,
      JdbcTemplate jdbc,
      AdmissionFence fence,
      Configuration axon,
      @Value("${stockade.reservation.storing.batch-size:64}") int batchSize,
      @Value("${stockade.reservation.storing.writers:2}") int writers,
      @Value("${stockade.reservation.storing.patience:2s}") Duration patience,
      @Value("${spring.transaction.default-timeout:5s}") Duration timeout) {
    // Plain JDBC transactions: nothing here needs JPA, whose session per transaction costs.
    JdbcTransactionManager transactions = new JdbcTransactionManager(dataSource);
    transactions.setDefaultTimeout((int) Math.max(1, timeout.toSeconds()));
    this.transactions = transactions;
    this.jdbc = jdbc;
    this.fence = fence;
    this.rows = new NewReservationRows(jdbc, axon);
    this.batchSize = batchSize;
    this.patience = patience;
    // Past this, its transaction has begun and, bounded by its timeout, ended.
    this.answerWithin = patience.plus(timeout).plusSeconds(5);
    for (int i = 0; i < writers; i++) {
      Thread writer = new Thread(this::write, "reservation-writer-" + i);
      writer.setDaemon(true);
      writer.start();
      this.writers.add(writer);
    }
  }

  /**
   * Stores the reservation the command describes, with its expiry; returns once the transaction
   * that stored it has committed.
   *
   * @return false when its stream already existed (nothing was stored)
   * @throws GateEpochChangedException when the gate that admitted it is not the gate any more
   *     (nothing was stored)
   * @throws StoringFailedException when it could not be stored, telling whether its transaction may
   *     have committed all the same
   */
  boolean store(ReserveStockCommand command) {
    return await(submit(command));
  }

  /** The command that stores {@code admission} as the gate admitted it ({@code id}). */
  static ReserveStockCommand command(
      Admission admission, AdmissionId id, Instant admittedAt, Instant expiresAt) {
    return new ReserveStockCommand(
        admission.reservationId(),
        admission.userId(),
        admission.lines(),
        admittedAt,
        expiresAt,
        id.sequence(),
        id.gateEpoch());
  }

  /**
   * Queues the reservation for storing, without waiting: {@link #await} gives its outcome. The
   * pre-queue's draw stores its admissions this way, many at a time, in the order it decides them.
   */
  CompletableFuture<Boolean> submit(ReserveStockCommand command) {
    // Built on the request's thread: the metadata comes from its logging context.
    Entry entry = new Entry(command, rows.row(command));
    if (!open) {
      throw new StoringFailedException(false, new IllegalStateException("Shutting down"));
    }
    queue.add(entry);
    if (!open && queue.remove(entry)) {
      throw new StoringFailedException(false, new IllegalStateException("Shutting down"));
    }
    return entry.outcome;
  }

  /** The outcome of a {@link #submit}, as {@link #store} answers it. */
  boolean await(CompletableFuture<Boolean> outcome) {
    try {
      return outcome.get(answerWithin.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failed) {
        throw failed;
      }
      throw new StoringFailedException(true, e.getCause());
    } catch (TimeoutException e) {
      // Still queued or being written: it may yet commit.
      throw new StoringFailedException(true, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoringFailedException(true, e);
    }
  }

  private void write() {
    List<Entry> batch = new ArrayList<>(batchSize);
    while (open || !queue.isEmpty()) {
      try {
        Entry first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, batchSize - 1);
        write(fresh(batch));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException | Error e) {
        log.error("Reservation writer failed; its batch is answered as not stored", e);
        batch.forEach(entry -> entry.fail(new StoringFailedException(false, e)));
      } finally {
        batch.clear();
      }
    }
  }

  /**
   * The entries that have not waited past their patience; the others are answered as not stored.
   * This keeps the time from admission to commit within the transaction timeout plus the patience,
   * below the recovery sweeper's bound: the sweeper never gives back units of a reservation still
   * on its way to the record.
   */
  private List<Entry> fresh(List<Entry> batch) {
    long now = System.nanoTime();
    List<Entry> fresh = new ArrayList<>(batch.size());
    for (Entry entry : batch) {
      if (now - entry.queuedAt > patience.toNanos()) {
        entry.fail(
            new StoringFailedException(
                false, new TimeoutException("Waited " + patience + " for the database")));
      } else {
        fresh.add(entry);
      }
    }
    return fresh;
  }

  /**
   * Writes the batch in one transaction and answers each of its entries; again one entry per
   * transaction when an entry's data was refused (a duplicate stream), so that only that entry
   * fails.
   */
  private void write(List<Entry> batch) {
    if (batch.isEmpty()) {
      return;
    }
    TransactionStatus transaction;
    try {
      transaction = transactions.getTransaction(TransactionDefinition.withDefaults());
    } catch (RuntimeException e) {
      // No transaction, so nothing stored.
      batch.forEach(entry -> entry.fail(new StoringFailedException(false, e)));
      return;
    }
    List<Entry> admitted;
    boolean eventsInserted = false;
    try {
      admitted = fenced(batch);
      if (!admitted.isEmpty()) {
        rows.insertEvents(admitted.stream().map(entry -> entry.row).toList());
        eventsInserted = true;
        rows.insertExpiries(admitted.stream().map(entry -> entry.command).toList());
      }
    } catch (RuntimeException e) {
      rollBack(transaction);
      List<Entry> unanswered = batch.stream().filter(entry -> !entry.outcome.isDone()).toList();
      if (unanswered.size() > 1 && e instanceof DataIntegrityViolationException) {
        unanswered.forEach(entry -> write(List.of(entry)));
      } else if (unanswered.size() == 1
          && !eventsInserted
          && e instanceof DuplicateKeyException duplicate) {
        // The stream's first event exists: stored by an earlier attempt, or the sweeper's
        // tombstone.
        unanswered.get(0).alreadyRecorded(duplicate);
      } else {
        // Rolled back, so nothing stored.
        unanswered.forEach(entry -> entry.fail(new StoringFailedException(false, e)));
      }
      return;
    }
    try {
      transactions.commit(transaction);
    } catch (RuntimeException e) {
      // The commit was asked for: it may have happened; the record tells (the recovery sweeper).
      admitted.forEach(entry -> entry.fail(new StoringFailedException(true, e)));
      return;
    }
    admitted.forEach(Entry::stored);
  }

  /**
   * Checks every epoch the batch was admitted in against the fence, once each, inside the
   * transaction; answers the entries of an ended epoch.
   *
   * @return the entries whose gate is still the gate
   */
  private List<Entry> fenced(List<Entry> batch) {
    Map<Long, Boolean> epochs = new LinkedHashMap<>();
    List<Entry> admitted = new ArrayList<>(batch.size());
    for (Entry entry : batch) {
      long epoch = entry.command.gateEpoch();
      Boolean stillOpen = epochs.get(epoch);
      if (stillOpen == null) {
        try {
          fence.check(epoch);
          stillOpen = true;
        } catch (GateEpochChangedException rebuilt) {
          stillOpen = false;
          batch.stream()
              .filter(other -> other.command.gateEpoch() == epoch)
              .forEach(other -> other.fail(rebuilt));
        }
        epochs.put(epoch, stillOpen);
      }
      if (stillOpen) {
        admitted.add(entry);
      }
    }
    return admitted;
  }

  private void rollBack(TransactionStatus transaction) {
    try {
      if (!transaction.isCompleted()) {
        transactions.rollback(transaction);
      }
    } catch (RuntimeException e) {
      log.debug("Rollback failed; the transaction ends with its connection", e);
    }
  }

  /** Stops taking reservations once those queued are written. */
  @PreDestroy
  void close() throws InterruptedException {
    open = false;
    for (Thread writer : writers) {
      writer.join(answerWithin.toMillis());
    }
    Entry left;
    while ((left = queue.poll()) != null) {
      left.fail(new StoringFailedException(false, new IllegalStateException("Shutting down")));
    }
  }

  private static final class Entry {

    final ReserveStockCommand command;
    final Object[] row;
    final CompletableFuture<Boolean> outcome = new CompletableFuture<>();
    final long queuedAt = System.nanoTime();

    Entry(ReserveStockCommand command, Object[] row) {
      this.command = command;
      this.row = row;
    }

    void stored() {
      outcome.complete(true);
    }

    void alreadyRecorded(DuplicateKeyException duplicate) {
      log.debug("Reservation {} was already recorded", command.reservationId(), duplicate);
      outcome.complete(false);
    }

    void fail(RuntimeException e) {
      outcome.completeExceptionally(e);
    }
  }

  /**
   * Storing a reservation failed. Before its transaction was asked to commit, nothing was stored,
   * for certain; from then on it may have been (the connection died during the commit, say), and
   * only the record can tell.
   */
  static final class StoringFailedException extends RuntimeException {

    private final boolean mayHaveCommitted;

    StoringFailedException(boolean mayHaveCommitted, Throwable cause) {
      super(cause.getMessage(), cause);
      this.mayHaveCommitted = mayHaveCommitted;
    }

    boolean mayHaveCommitted() {
      return mayHaveCommitted;
    }
  }
}
