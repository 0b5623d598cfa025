package io.stockade.query.replay;

import io.stockade.platform.eventstore.EventTableFold.StoredEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The replay's copies brought up to the event store after the bulk fold: the events stored after a
 * token (those in its gaps included, as a processor receives them), read by Axon's storage engine
 * and written by the models' own writes ({@link ReadModelFold#follow}), a batch per transaction.
 */
@Component
class ReplayCatchUp {

  /** Events per transaction. */
  private static final int BATCH = 1000;

  private final EventStorageEngine storage;
  private final TransactionTemplate transaction;

  ReplayCatchUp(EventStorageEngine storage, PlatformTransactionManager transactions) {
    this.storage = storage;
    this.transaction = new TransactionTemplate(transactions);
  }

  /**
   * Applies to the copies named with {@code suffix} every event stored after {@code from} by the
   * time it reads it, and answers the token of the last one ({@code from} when there was none).
   *
   * @param from null for the first event on
   * @param guard run in each batch's transaction before it commits: throws to roll it back
   * @param applied told how many events each batch brought
   */
  TrackingToken catchUp(
      List<ReadModelFold> folds,
      String suffix,
      TrackingToken from,
      Runnable guard,
      LongConsumer applied) {
    Map<Class<?>, List<ReadModelFold.Writer>> writers = new HashMap<>();
    for (ReadModelFold fold : folds) {
      ReadModelFold.Writer writer = fold.follow(suffix);
      fold.eventTypes()
          .values()
          .forEach(type -> writers.computeIfAbsent(type, t -> new ArrayList<>()).add(writer));
    }
    TrackingToken position = from;
    while (true) {
      TrackingToken after = position;
      Batch batch =
          transaction.execute(
              status -> {
                Batch done = apply(after, writers);
                guard.run();
                return done;
              });
      if (batch == null || batch.events() == 0) {
        return position;
      }
      position = batch.end();
      applied.accept(batch.events());
      if (batch.events() < BATCH) {
        return position;
      }
    }
  }

  /** One batch's end and size. */
  private record Batch(TrackingToken end, int events) {}

  /** Reads a batch after {@code after} and applies it in one unit of work, in the transaction. */
  private Batch apply(TrackingToken after, Map<Class<?>, List<ReadModelFold.Writer>> writers) {
    List<TrackedEventMessage<?>> events = new ArrayList<>(BATCH);
    try (Stream<? extends TrackedEventMessage<?>> stored = storage.readEvents(after, false)) {
      Iterator<? extends TrackedEventMessage<?>> iterator = stored.iterator();
      while (events.size() < BATCH && iterator.hasNext()) {
        events.add(iterator.next());
      }
    }
    if (events.isEmpty()) {
      return new Batch(after, 0);
    }
    DefaultUnitOfWork<?> unitOfWork = DefaultUnitOfWork.startAndGet(events.get(0));
    try {
      for (TrackedEventMessage<?> event : events) {
        List<ReadModelFold.Writer> these = writers.get(event.getPayloadType());
        if (these != null) {
          StoredEvent stored = stored(event);
          these.forEach(writer -> writer.accept(stored));
        }
      }
    } catch (RuntimeException e) {
      unitOfWork.rollback(e);
      throw e;
    }
    // Writes what the models' writes held for the unit of work; a failure rolls it back and
    // reaches the transaction.
    unitOfWork.commit();
    return new Batch(events.get(events.size() - 1).trackingToken(), events.size());
  }

  private static StoredEvent stored(TrackedEventMessage<?> event) {
    DomainEventMessage<?> domain = (DomainEventMessage<?>) event;
    return new StoredEvent(
        event.trackingToken().position().orElse(0),
        domain.getAggregateIdentifier(),
        domain.getSequenceNumber(),
        event.getTimestamp().toString(),
        event.getPayload(),
        event.getIdentifier());
  }
}
