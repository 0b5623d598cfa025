package io.stockade.command.draw;

import java.util.Map;
import java.util.UUID;
import org.axonframework.common.DateTimeUtils;
import org.axonframework.config.Configuration;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.eventsourcing.eventstore.jpa.DomainEventEntry;

/**
 * The rows of events of the draw's own streams ({@code queued:<reservationId>}) in Axon's table,
 * serialized by Axon's event serializer as Axon's JPA engine writes them, for the callers'
 * multi-row inserts ({@link #COLUMNS}, {@link #ROW}); the unique (stream, sequence) key lets each
 * in once.
 */
final class EventRows {

  /** The head of an insert of event rows, for {@code MultiRowInsert}. */
  static final String COLUMNS =
      "insert into domain_event_entry (aggregate_identifier, sequence_number, type,"
          + " event_identifier, meta_data, payload, payload_revision, payload_type, time_stamp)"
          + " values ";

  /** One event row's placeholders. */
  static final String ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?)";

  private final Configuration axon;

  EventRows(Configuration axon) {
    this.axon = axon;
  }

  /** The row of {@code payload} as event {@code sequence} of stream {@code streamId}. */
  Object[] row(String aggregateType, String streamId, long sequence, Object payload) {
    DomainEventEntry entry =
        new DomainEventEntry(
            new GenericDomainEventMessage<>(
                aggregateType,
                streamId,
                sequence,
                payload,
                Map.of(),
                UUID.randomUUID().toString(),
                GenericEventMessage.clock.instant()),
            axon.eventSerializer());
    return new Object[] {
      entry.getAggregateIdentifier(),
      sequence,
      entry.getType(),
      entry.getEventIdentifier(),
      entry.getMetaData().getData(),
      entry.getPayload().getData(),
      entry.getPayload().getType().getRevision(),
      entry.getPayload().getType().getName(),
      DateTimeUtils.formatInstant(entry.getTimestamp())
    };
  }
}
