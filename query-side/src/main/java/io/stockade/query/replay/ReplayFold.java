package io.stockade.query.replay;

import io.stockade.platform.eventstore.EventTableFold;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * The bulk part of a replay, in one transaction: one read of the event table ({@link
 * EventTableFold}) folded into the copies of every read model's tables ({@link ReadModelFold}),
 * ending at a gap-aware token. The replay goes on from there ({@link ReplayCatchUp}): an event that
 * commits late below the end (a gap the token keeps) reaches the copies once, and so does every
 * event stored after the fold began.
 *
 * <p>Three threads share the work: one reads and decodes the table, one folds the events into the
 * models' writers, and the transaction's own runs the statements they hand over ({@link BulkRows}),
 * so that the database writes one batch while the next is being folded.
 */
@Component
class ReplayFold {

  private static final Logger log = LoggerFactory.getLogger(ReplayFold.class);

  /** Events per chunk handed from the reading thread to the folding one. */
  private static final int CHUNK = 1000;

  /** Chunks read ahead at most. */
  private static final int QUEUED = 8;

  /** Statements handed to the transaction's thread and not run yet, at most. */
  private static final int WRITES_QUEUED = 4;

  /** What reads the event table in global-index order: {@link EventTableFold#fold}. */
  interface EventTable {
    GapAwareTrackingToken fold(
        Map<String, Class<?>> types, Consumer<EventTableFold.StoredEvent> sink);
  }

  private final EventTable table;

  @Autowired
  ReplayFold(EventTableFold table) {
    this(table::fold);
  }

  ReplayFold(EventTable table) {
    this.table = table;
  }

  /**
   * Folds the event table into the empty copies (named with {@code suffix}) of the tables of {@code
   * chosen}. Must run in a transaction, which holds what it wrote until it commits.
   *
   * @param progress told the global index reached, as the fold goes
   * @return where the fold ended: null for an empty event store
   */
  GapAwareTrackingToken fold(
      String replayId,
      List<ReadModelFold> chosen,
      String suffix,
      long head,
      LongConsumer progress) {
    BlockingQueue<Runnable> writes = new ArrayBlockingQueue<>(WRITES_QUEUED);
    Executor toTransaction = write -> hand(writes, write);
    Map<String, Class<?>> types = new HashMap<>();
    Map<Class<?>, List<ReadModelFold.Writer>> writersByType = new HashMap<>();
    List<ReadModelFold.Writer> writers = new ArrayList<>();
    for (ReadModelFold fold : chosen) {
      ReadModelFold.Writer writer = fold.start(toTransaction, suffix);
      writers.add(writer);
      fold.eventTypes()
          .forEach(
              (name, type) -> {
                types.put(name, type);
                writersByType.computeIfAbsent(type, t -> new ArrayList<>()).add(writer);
              });
    }
    long[] nextTenth = {1};
    FutureTask<GapAwareTrackingToken> folding =
        new FutureTask<>(
            () -> {
              GapAwareTrackingToken reached =
                  read(
                      types,
                      event -> {
                        for (ReadModelFold.Writer writer :
                            writersByType.get(event.payload().getClass())) {
                          writer.accept(event);
                        }
                        progress.accept(event.globalIndex());
                        while (nextTenth[0] <= 10
                            && event.globalIndex() * 10 >= nextTenth[0] * head) {
                          log.info(
                              "Replay {}: folded up to global index {} of {} ({}%)",
                              replayId, event.globalIndex(), head, nextTenth[0] * 10);
                          nextTenth[0]++;
                        }
                      });
              writers.forEach(ReadModelFold.Writer::finish);
              return reached;
            });
    GapAwareTrackingToken end = write(folding, writes);
    if (end != null) {
      progress.accept(end.getIndex());
    }
    log.info(
        "Replay {}: {} folded up to {}",
        replayId,
        chosen.stream().map(ReadModelFold::processor).toList(),
        end);
    return end;
  }

  /**
   * Runs {@code folding} on a thread of its own and, on the caller's (the transaction's), the
   * statements it hands over, in order, until it has ended and handed over its last: the folding
   * and the database's writing overlap instead of taking turns.
   */
  private static GapAwareTrackingToken write(
      FutureTask<GapAwareTrackingToken> folding, BlockingQueue<Runnable> writes) {
    Thread folder = new Thread(folding, "replay-fold");
    folder.setDaemon(true);
    folder.start();
    try {
      while (true) {
        Runnable write = writes.poll(100, TimeUnit.MILLISECONDS);
        if (write != null) {
          write.run();
        } else if (folding.isDone() && writes.isEmpty()) {
          // Every statement was handed over before the folding ended.
          return folding.get();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while writing the fold", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException failure
          ? failure
          : new IllegalStateException("Could not fold the event table", e.getCause());
    } finally {
      folding.cancel(true);
    }
  }

  /**
   * Reads and decodes the table on a thread of its own (outside the caller's transaction: a read
   * needs none) while the caller's thread writes, handing it the events a chunk at a time through a
   * bounded queue: at most {@code QUEUED} chunks of {@code CHUNK} events are held.
   */
  private GapAwareTrackingToken read(
      Map<String, Class<?>> types, Consumer<EventTableFold.StoredEvent> sink) {
    BlockingQueue<List<EventTableFold.StoredEvent>> chunks = new ArrayBlockingQueue<>(QUEUED);
    FutureTask<GapAwareTrackingToken> reading =
        new FutureTask<>(
            () -> {
              List<EventTableFold.StoredEvent> chunk = new ArrayList<>(CHUNK);
              GapAwareTrackingToken end =
                  table.fold(
                      types,
                      event -> {
                        chunk.add(event);
                        if (chunk.size() == CHUNK) {
                          hand(chunks, List.copyOf(chunk));
                          chunk.clear();
                        }
                      });
              if (!chunk.isEmpty()) {
                hand(chunks, List.copyOf(chunk));
              }
              return end;
            });
    Thread reader = new Thread(reading, "replay-fold-reader");
    reader.setDaemon(true);
    reader.start();
    try {
      while (true) {
        List<EventTableFold.StoredEvent> chunk = chunks.poll(100, TimeUnit.MILLISECONDS);
        if (chunk != null) {
          chunk.forEach(sink);
        } else if (reading.isDone() && chunks.isEmpty()) {
          // Every chunk was queued before the reading ended.
          return reading.get();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while folding the event table", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("Could not read the event table", e.getCause());
    } finally {
      reading.cancel(true);
    }
  }

  private static <T> void hand(BlockingQueue<T> queue, T item) {
    try {
      queue.put(item);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("The fold stopped reading", e);
    }
  }
}
