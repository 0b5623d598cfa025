package io.stockade.localinfra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker the quick start and the tests start: real, transactional, and keeping its data. */
class EmbeddedKafkaTest {

  @TempDir Path dir;

  @Test
  void commitsTransactionsHidesAbortedOnesAndKeepsTopicsAcrossARestart() throws Exception {
    int port;
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir)) {
      port = kafka.port();
      try (Admin admin =
          Admin.create(
              Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
        admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get();
      }
      try (KafkaProducer<String, String> producer = producer(kafka.bootstrapServers())) {
        producer.initTransactions();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>("t", "k", "committed"));
        producer.commitTransaction();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>("t", "k", "aborted"));
        producer.abortTransaction();
      }
      assertThat(readCommitted(kafka.bootstrapServers())).containsExactly("committed");
    }
    try (EmbeddedKafka again = EmbeddedKafka.start(dir)) {
      assertThat(again.port()).isEqualTo(port);
      assertThat(readCommitted(again.bootstrapServers())).containsExactly("committed");
    }
  }

  private static KafkaProducer<String, String> producer(String servers) {
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
    properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "embedded-kafka-test");
    return new KafkaProducer<>(properties, new StringSerializer(), new StringSerializer());
  }

  private static List<String> readCommitted(String servers) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
    properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(properties, new StringDeserializer(), new StringDeserializer())) {
      TopicPartition partition = new TopicPartition("t", 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long end = consumer.endOffsets(List.of(partition)).get(partition);
      while (consumer.position(partition) < end) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
          values.add(record.value());
        }
      }
    }
    return values;
  }
}
