package io.stockade.system;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The events the query side published to Kafka's topic {@code stockade.events}, as committed. */
final class PublishedEvents {

  static final String TOPIC = "stockade.events";

  /** {@code "<position> <type>"} strings in position order. */
  static final Comparator<String> BY_POSITION =
      Comparator.comparingLong(event -> Long.parseLong(event.substring(0, event.indexOf(' '))));

  private PublishedEvents() {}

  /**
   * Every committed record of the topic as {@code "<stockade-position> <type>"} (the type from
   * {@code ce_type} without its prefix), partition by partition; none when the topic is not there
   * yet.
   */
  static List<String> read(String bootstrapServers) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<String> events = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      if (!consumer.listTopics(Duration.ofSeconds(10)).containsKey(TOPIC)) {
        return events;
      }
      List<TopicPartition> partitions =
          consumer.partitionsFor(TOPIC).stream()
              .map(info -> new TopicPartition(TOPIC, info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          events.add(
              header(record, "stockade-position")
                  + " "
                  + header(record, "ce_type").substring("io.stockade.".length()));
        }
      }
    }
    return events;
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return new String(header.value(), StandardCharsets.UTF_8);
  }
}
