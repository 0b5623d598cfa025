package io.stockade.query;

import io.stockade.api.draw.ReservationDrawn;
import io.stockade.api.draw.ReservationQueued;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.sku.SkuEvent;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Appends events to the event store as the command side stores them, for the query side's tests.
 */
public final class Events {

  private Events() {}

  /** One event of the stream of a reservation or a SKU (by its id), stamped now. */
  public static void append(
      EventStore eventStore,
      TransactionTemplate transaction,
      String aggregateId,
      long sequence,
      Object payload) {
    append(eventStore, transaction, aggregateId, sequence, payload, Instant.now());
  }

  /**
   * An event appended in a transaction that has taken the event's global index and stays open until
   * {@link #commit()}: events appended meanwhile commit above it, and it then fills a gap below
   * them, as a slow writer's does.
   */
  public static final class Held {

    private final CountDownLatch commit = new CountDownLatch(1);
    private final CompletableFuture<Void> transaction;

    private Held(
        EventStore eventStore,
        TransactionTemplate transactions,
        String aggregateId,
        long sequence,
        Object payload)
        throws InterruptedException {
      CountDownLatch appended = new CountDownLatch(1);
      transaction =
          CompletableFuture.runAsync(
              () ->
                  transactions.executeWithoutResult(
                      status -> {
                        append(eventStore, transactions, aggregateId, sequence, payload);
                        appended.countDown();
                        try {
                          commit.await(120, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                          throw new IllegalStateException(e);
                        }
                      }));
      if (!appended.await(60, TimeUnit.SECONDS)) {
        commit.countDown();
        throw new IllegalStateException("The held event was not appended within 60 s");
      }
    }

    /** Commits the event's transaction and waits for the commit. */
    public void commit() throws Exception {
      commit.countDown();
      transaction.get(60, TimeUnit.SECONDS);
    }

    /** Lets the transaction go (commits it) without waiting, for a test's clean-up. */
    public void release() {
      commit.countDown();
    }
  }

  /** Appends an event whose transaction stays open until {@link Held#commit()}. */
  public static Held appendHeld(
      EventStore eventStore,
      TransactionTemplate transaction,
      String aggregateId,
      long sequence,
      Object payload)
      throws InterruptedException {
    return new Held(eventStore, transaction, aggregateId, sequence, payload);
  }

  /** One event of an aggregate's stream, stamped {@code at}. */
  public static void append(
      EventStore eventStore,
      TransactionTemplate transaction,
      String aggregateId,
      long sequence,
      Object payload,
      Instant at) {
    // As the command side stores them: each aggregate type's streams in their own namespace.
    String type;
    String stream;
    if (payload instanceof ReservationEvent) {
      type = "Reservation";
      stream = ReservationEvent.streamId(aggregateId);
    } else if (payload instanceof ReservationQueued || payload instanceof ReservationDrawn) {
      type = ReservationQueued.AGGREGATE_TYPE;
      stream = ReservationQueued.streamId(aggregateId);
    } else if (payload instanceof SkuEvent) {
      type = "Sku";
      stream = SkuEvent.streamId(aggregateId);
    } else {
      type = payload.getClass().getSimpleName();
      stream = aggregateId;
    }
    transaction.executeWithoutResult(
        status ->
            eventStore.publish(
                new GenericDomainEventMessage<>(
                    type, stream, sequence, payload, Map.of(), UUID.randomUUID().toString(), at)));
  }
}
