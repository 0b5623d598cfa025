package io.stockade.query;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.sku.SkuEvent;
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

  /** One event of the stream of a reservation or a SKU (by its id), stamped now. */
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
    // As the command side stores them: each aggregate type's streams in their own namespace.
    String type;
    String stream;
    if (payload instanceof ReservationEvent) {
      type = "Reservation";
      stream = ReservationEvent.streamId(aggregateId);
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
