package io.stockade.query.feed;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The topic the publisher writes to, read back for the one thing the publisher must know when it
 * starts: the last position committed to it. The topic is the record of what was published (not the
 * database, which a crash between Kafka's commit and the database's could leave behind), so a new
 * publisher goes on exactly after it.
 */
final class PublishedTopic {

  /** The header that carries an event's position in the event store. */
  static final String POSITION = "stockade-position";

  /** How far back from a partition's end the first look goes; widened until a record is found. */
  private static final long FIRST_LOOK = 4096;

  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  private final KafkaPublishing settings;

  PublishedTopic(KafkaPublishing settings) {
    this.settings = settings;
  }

  /** Creates the topic unless it exists. */
  void create(Admin admin) throws InterruptedException {
    NewTopic topic =
        new NewTopic(
            settings.topic(),
            Optional.of(settings.partitions()),
            settings.replicationFactor() > 0
                ? Optional.of(settings.replicationFactor())
                : Optional.empty());
    try {
      admin.createTopics(List.of(topic)).all().get();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("Cannot create topic " + settings.topic(), e.getCause());
      }
    }
  }

  /**
   * The highest position of a committed record in the topic, 0 when it holds none. Each partition's
   * records are in position order (one producer at a time writes them, in order), so the last
   * committed record of each partition is the highest there; aborted records and transaction
   * markers are skipped by reading committed records only.
   */
  long lastPosition() {
    Map<String, Object> config = new HashMap<>(settings.properties());
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    config.put(
        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
        IsolationLevel.READ_COMMITTED.toString().toLowerCase(java.util.Locale.ROOT));
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(settings.topic(), READ_TIMEOUT).stream()
              .map(info -> new TopicPartition(info.topic(), info.partition()))
              .toList();
      Map<TopicPartition, Long> begins = consumer.beginningOffsets(partitions, READ_TIMEOUT);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, READ_TIMEOUT);
      consumer.assign(partitions);
      long last = 0;
      for (TopicPartition partition : partitions) {
        consumer.pause(partitions);
        consumer.resume(List.of(partition));
        last =
            Math.max(
                last,
                lastPosition(consumer, partition, begins.get(partition), ends.get(partition)));
      }
      return last;
    }
  }

  private static long lastPosition(
      KafkaConsumer<byte[], byte[]> consumer, TopicPartition partition, long begin, long end) {
    long look = FIRST_LOOK;
    while (true) {
      long from = Math.max(begin, end - look);
      long found = highestBetween(consumer, partition, from, end);
      if (found > 0 || from == begin) {
        return found;
      }
      look *= 4;
    }
  }

  /** The highest position among the committed records from {@code from} up to {@code end}. */
  private static long highestBetween(
      KafkaConsumer<byte[], byte[]> consumer, TopicPartition partition, long from, long end) {
    consumer.seek(partition, from);
    Instant deadline = Instant.now().plus(READ_TIMEOUT);
    long highest = 0;
    while (consumer.position(partition) < end) {
      if (Instant.now().isAfter(deadline)) {
        throw new TimeoutException(
            "Could not read "
                + partition
                + " from "
                + from
                + " to "
                + end
                + " within "
                + READ_TIMEOUT);
      }
      for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
        if (record.offset() >= end
            || !record.topic().equals(partition.topic())
            || record.partition() != partition.partition()) {
          continue;
        }
        highest = Math.max(highest, position(record));
      }
    }
    return highest;
  }

  private static long position(ConsumerRecord<byte[], byte[]> record) {
    Header header = record.headers().lastHeader(POSITION);
    return header == null
        ? 0
        : Long.parseLong(new String(header.value(), StandardCharsets.US_ASCII));
  }
}
