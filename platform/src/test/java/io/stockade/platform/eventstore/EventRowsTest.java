package io.stockade.platform.eventstore;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.axonframework.common.DateTimeUtils;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.eventsourcing.eventstore.jpa.DomainEventEntry;
import org.axonframework.serialization.json.JacksonSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class EventRowsTest {

  private static final Instant AT = Instant.parse("2026-12-07T10:00:00.123456789Z");

  private final JacksonSerializer serializer = JacksonSerializer.defaultSerializer();

  record Payload(String id, List<String> lines, long count) {}

  @AfterEach
  void restoreClock() {
    GenericEventMessage.clock = Clock.systemUTC();
  }

  @Test
  void aRowHoldsWhatAxonsOwnEntryHoldsWithoutMetaData() {
    assertSameAsAxon(Map.of());
  }

  @Test
  void aRowHoldsWhatAxonsOwnEntryHoldsWithMetaData() {
    assertSameAsAxon(Map.of("correlationId", "c-1", "traceId", "t-1", "requestId", "r-1"));
  }

  @Test
  void eachRowHasANewEventIdentifier() {
    EventRows rows = new EventRows(() -> serializer);
    Payload payload = new Payload("p", List.of(), 0);
    assertThat(rows.row("T", "s", 0, payload)[3]).isNotEqualTo(rows.row("T", "s", 0, payload)[3]);
  }

  private void assertSameAsAxon(Map<String, ?> metaData) {
    GenericEventMessage.clock = Clock.fixed(AT, ZoneOffset.UTC);
    Payload payload = new Payload("r-1", List.of("a", "b"), 7);
    Object[] row = new EventRows(() -> serializer).row("Reservation", "r-1", 3, payload, metaData);
    DomainEventEntry axon =
        new DomainEventEntry(
            new GenericDomainEventMessage<>(
                "Reservation", "r-1", 3, payload, metaData, (String) row[3], AT),
            serializer);

    assertThat(row[0]).isEqualTo(axon.getAggregateIdentifier());
    assertThat(row[1]).isEqualTo(axon.getSequenceNumber());
    assertThat(row[2]).isEqualTo(axon.getType());
    assertThat((byte[]) row[4]).isEqualTo(axon.getMetaData().getData());
    assertThat((byte[]) row[5]).isEqualTo(axon.getPayload().getData());
    assertThat(row[6]).isEqualTo(axon.getPayload().getType().getRevision());
    assertThat(row[7]).isEqualTo(axon.getPayload().getType().getName());
    assertThat(row[8]).isEqualTo(DateTimeUtils.formatInstant(axon.getTimestamp()));
    assertThat(row[8]).isEqualTo("2026-12-07T10:00:00.123Z");
  }
}
