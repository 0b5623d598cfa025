package io.stockade.query;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Appends events to the event store as the command side stores them, for the query side's tests.
 */
public final class Events {

  private Events() {}

  /** One event of an aggregate's stream, stamped now. */
  public static void append(
      EventStore eventStore,
      TransactionTemplate transaction,
      String aggregateId,
      long sequence,
      Object payload) {
    append(eventStore, transaction, aggregateId, sequence, payload, Instant.now());
  }

  /** One event of an aggregate's stream, stamped {@code at}. */
  public static void append(
      EventStore eventStore,
      TransactionTemplate transaction,
      String aggregateId,
      long sequence,
      Object payload,
      Instant at) {
    transaction.executeWithoutResult(
        status ->
            eventStore.publish(
                new GenericDomainEventMessage<>(
                    payload.getClass().getSimpleName(),
                    aggregateId,
                    sequence,
                    payload,
                    Map.of(),
                    UUID.randomUUID().toString(),
                    at)));
  }
}
