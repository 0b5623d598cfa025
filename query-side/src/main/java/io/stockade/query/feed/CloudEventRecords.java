package io.stockade.query.feed;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import tools.jackson.databind.json.JsonMapper;

/**
 * A stored event as a Kafka record in the CloudEvents Kafka binding's binary mode: the key the
 * aggregate's id, the value the feed's JSON of the event (as {@code GET /api/events} shows it), the
 * event's attributes in {@code ce_} headers, and its position in the event store.
 */
final class CloudEventRecords {

  static final String TYPE_PREFIX = "io.stockade.";

  private final String topic;
  private final byte[] source;
  private final JsonMapper json;

  CloudEventRecords(KafkaPublishing settings, JsonMapper json) {
    this.topic = settings.topic();
    this.source = bytes(settings.source());
    this.json = json;
  }

  ProducerRecord<String, byte[]> record(FeedEvent event) {
    RecordHeaders headers = new RecordHeaders();
    headers.add("ce_specversion", bytes("1.0"));
    headers.add("ce_id", bytes(event.identifier()));
    headers.add("ce_source", source);
    headers.add("ce_type", bytes(TYPE_PREFIX + event.type()));
    headers.add("ce_time", bytes(event.timestamp().toString()));
    if (event.aggregateId() != null) {
      headers.add("ce_subject", bytes(event.aggregateId()));
    }
    headers.add("content-type", bytes("application/json"));
    headers.add(PublishedTopic.POSITION, bytes(Long.toString(event.position())));
    return new ProducerRecord<>(
        topic, null, event.aggregateId(), json.writeValueAsBytes(event), headers);
  }

  private static byte[] bytes(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }
}
