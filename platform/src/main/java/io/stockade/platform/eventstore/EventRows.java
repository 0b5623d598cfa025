package io.stockade.platform.eventstore;

import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.axonframework.common.DateTimeUtils;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.messaging.MetaData;
import org.axonframework.serialization.SerializedObject;
import org.axonframework.serialization.Serializer;

/**
 * Rows of Axon's event table ({@code domain_event_entry}) as its JPA engine writes them, for the
 * write paths that insert many events in one statement ({@link #COLUMNS}, {@link #ROW}): the
 * payload and metadata serialized by Axon's event serializer, a new event identifier, the time
 * stamp of Axon's event clock in Axon's text form.
 *
 * <p>Built directly, not through Axon's {@code DomainEventEntry}: that one formats the time stamp
 * into text, which a row's reader then parses back and formats again (in a profile of the draw and
 * of the 202s, more than half of the time a row took), and serializes empty metadata anew for each
 * event. The columns hold what it would hold, byte for byte ({@code EventRowsTest}).
 */
public final class EventRows {

  /** The head of an insert of event rows, for {@code MultiRowInsert}. */
  public static final String COLUMNS =
      "insert into domain_event_entry (aggregate_identifier, sequence_number, type,"
          + " event_identifier, meta_data, payload, payload_revision, payload_type, time_stamp)"
          + " values ";

  /** One event row's placeholders, in the order of {@link #COLUMNS} and of {@link #row}. */
  public static final String ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?)";

  private final Supplier<Serializer> serializers;
  private volatile Serializing serializing;

  /**
   * @param serializer Axon's event serializer, asked for at the first row (Axon's configuration may
   *     not have made it when the caller is made)
   */
  public EventRows(Supplier<Serializer> serializer) {
    this.serializers = serializer;
  }

  /** The row of {@code payload} as event {@code sequence} of stream {@code streamId}. */
  public Object[] row(String aggregateType, String streamId, long sequence, Object payload) {
    return row(aggregateType, streamId, sequence, payload, Map.of());
  }

  /** The same with metadata. */
  public Object[] row(
      String aggregateType,
      String streamId,
      long sequence,
      Object payload,
      Map<String, ?> metaData) {
    Serializing with = serializing();
    SerializedObject<byte[]> serialized = with.serializer.serialize(payload, byte[].class);
    return new Object[] {
      streamId,
      sequence,
      aggregateType,
      UUID.randomUUID().toString(),
      metaData.isEmpty()
          ? with.noMetaData
          : with.serializer.serialize(MetaData.from(metaData), byte[].class).getData(),
      serialized.getData(),
      serialized.getType().getRevision(),
      serialized.getType().getName(),
      DateTimeUtils.formatInstant(GenericEventMessage.clock.instant())
    };
  }

  private Serializing serializing() {
    Serializing with = serializing;
    if (with == null) {
      Serializer serializer = serializers.get();
      with =
          new Serializing(
              serializer, serializer.serialize(MetaData.emptyInstance(), byte[].class).getData());
      serializing = with;
    }
    return with;
  }

  /** The serializer, and the empty metadata it writes (the same bytes for every row). */
  private record Serializing(Serializer serializer, byte[] noMetaData) {}
}
