package io.stockade.query.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.stockade.api.sku.SkuRegistered;
import io.stockade.localinfra.EmbeddedKafka;
import io.stockade.platform.testing.ApiClient;
import io.stockade.query.Events;
import io.stockade.query.QuerySideApplication;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Kafka publisher against a real broker (KRaft, started here): every stored event in the topic
 * exactly once, in position order per partition, with the feed's JSON and CloudEvents headers;
 * across two instances, a restart, a producer of the same transactional id left with an open
 * transaction (a publisher killed mid-transaction, or one that paused past its lease), and the
 * broker stopped and started again. Query-side instances of their own on a database of their own.
 */
class KafkaPublisherIntegrationTest {

  private static final String DATABASE = "stockade_test_kafka";
  private static final Duration PATIENCE = Duration.ofSeconds(120);

  @TempDir static Path brokers;
  private static EmbeddedKafka kafka;

  private final List<ConfigurableApplicationContext> instances = new ArrayList<>();
  private final JsonMapper json = JsonMapper.builder().build();
  private String run;
  private String topic;

  @BeforeAll
  static void startBroker() {
    kafka = EmbeddedKafka.start(brokers.resolve("shared"));
  }

  @AfterAll
  static void stopBroker() {
    kafka.close();
  }

  @BeforeEach
  void setUp() {
    run = UUID.randomUUID().toString().substring(0, 8);
    topic = "events-" + run;
  }

  @AfterEach
  void stopInstances() {
    instances.forEach(ConfigurableApplicationContext::close);
  }

  @Test
  void publishesEveryStoredEventOnceWithTheFeedsJsonAndCloudEventsHeaders() {
    ConfigurableApplicationContext instance = start(kafka.bootstrapServers());
    append(instance, 30);
    List<ConsumerRecord<String, byte[]>> records = awaitEveryEventOnce(instance, kafka);

    ApiClient http = client(instance);
    JsonNode feed = http.get("/api/events?after=0&limit=1000").getBody();
    Map<Long, JsonNode> byPosition = new HashMap<>();
    feed.get("events").forEach(event -> byPosition.put(event.get("position").asLong(), event));
    for (ConsumerRecord<String, byte[]> record : records) {
      long position = Long.parseLong(header(record, "stockade-position"));
      JsonNode value = json.readTree(record.value());
      if (byPosition.containsKey(position)) {
        assertThat(value).isEqualTo(byPosition.get(position));
      }
      assertThat(record.key()).isEqualTo(value.get("aggregateId").asString());
      assertThat(header(record, "ce_specversion")).isEqualTo("1.0");
      assertThat(header(record, "ce_type"))
          .isEqualTo("io.stockade." + value.get("type").asString());
      assertThat(header(record, "ce_source")).isEqualTo("/stockade");
      assertThat(header(record, "ce_id")).isNotBlank();
      assertThat(header(record, "ce_time")).isEqualTo(value.get("timestamp").asString());
      assertThat(header(record, "content-type")).isEqualTo("application/json");
    }
    assertThat(byPosition).isNotEmpty();
    assertThat(records.stream().map(r -> header(r, "ce_id")).distinct()).hasSize(records.size());
    assertThat(instance.getBean(KafkaPublisher.class).state())
        .isEqualTo(KafkaPublisher.State.PUBLISHING);
  }

  @Test
  void twoInstancesAFencedProducerAndARestartPublishEachPositionOnce() throws Exception {
    ConfigurableApplicationContext first = start(kafka.bootstrapServers());
    ConfigurableApplicationContext second = start(kafka.bootstrapServers());
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger written = new AtomicInteger();
    CompletableFuture<Void> writer =
        CompletableFuture.runAsync(
            () -> {
              while (writing.get()) {
                // Through any instance still running: the test stops one of them meanwhile.
                for (ConfigurableApplicationContext instance : List.copyOf(instances)) {
                  if (instance.isActive()) {
                    try {
                      append(instance, 5);
                      written.addAndGet(5);
                      break;
                    } catch (RuntimeException closedMeanwhile) {
                      // the next one
                    }
                  }
                }
              }
            });
    await().atMost(PATIENCE).until(() -> publishing(first, second) != null);
    await().atMost(PATIENCE).until(() -> written.get() >= 100);

    // A producer of the same transactional id, as a publisher killed in the middle of a
    // transaction leaves it (or one paused past its lease): it fences the publisher.
    try (KafkaProducer<String, byte[]> zombie = zombie()) {
      zombie.initTransactions();
      zombie.beginTransaction();
      zombie.send(record("zombie", Long.MAX_VALUE)).get();
      long fenced = head();
      // The publisher takes over again, fencing the zombie in its turn: events stored after the
      // zombie came reach the topic, and the zombie's transaction can no longer commit.
      await().atMost(PATIENCE).until(() -> highestPublished(kafka) > fenced);
      assertThatThrownBy(zombie::commitTransaction).isInstanceOf(KafkaException.class);
    }

    // The publishing instance stops (a restart): the other one goes on.
    ConfigurableApplicationContext stopped = publishing(first, second);
    ConfigurableApplicationContext other = stopped == first ? second : first;
    stopped.close();
    long restarted = head();
    await().atMost(PATIENCE).until(() -> highestPublished(kafka) > restarted);
    assertThat(other.getBean(KafkaPublisher.class).state())
        .isEqualTo(KafkaPublisher.State.PUBLISHING);
    ConfigurableApplicationContext third = start(kafka.bootstrapServers());
    int before = written.get();
    await().atMost(PATIENCE).until(() -> written.get() >= before + 100);
    writing.set(false);
    writer.get();

    List<ConsumerRecord<String, byte[]>> records = awaitEveryEventOnce(other, kafka);
    assertThat(records).noneMatch(r -> "zombie".equals(r.key()));
    await()
        .atMost(PATIENCE)
        .until(() -> third.getBean(KafkaPublisher.class).state() == KafkaPublisher.State.STANDBY);
    assertThat(other.getBean(KafkaPublisher.class).state())
        .isEqualTo(KafkaPublisher.State.PUBLISHING);
  }

  @Test
  void publishesWhatWasStoredWhileTheBrokerWasDownOnceItIsBack() {
    Path dir = brokers.resolve("down-" + run);
    EmbeddedKafka broker = EmbeddedKafka.start(dir);
    EmbeddedKafka again = null;
    try {
      ConfigurableApplicationContext instance = start(broker.bootstrapServers());
      append(instance, 10);
      awaitEveryEventOnce(instance, broker);
      KafkaPublisher publisher = instance.getBean(KafkaPublisher.class);

      broker.close();
      append(instance, 20);
      await()
          .atMost(PATIENCE)
          .until(() -> publisher.state() == KafkaPublisher.State.BROKER_UNAVAILABLE);
      JsonNode health =
          client(instance)
              .get("/actuator/health/publisher")
              .getBody()
              .get("components")
              .get("kafka");
      assertThat(health.get("status").asString()).isEqualTo("UP");
      assertThat(health.get("details").get("state").asString()).isEqualTo("BROKER_UNAVAILABLE");
      assertThat(health.get("details").get("lag").asDouble()).isGreaterThan(0);

      again = EmbeddedKafka.start(dir);
      assertThat(again.bootstrapServers()).isEqualTo(broker.bootstrapServers());
      awaitEveryEventOnce(instance, again);
    } finally {
      if (again != null) {
        again.close();
      }
    }
  }

  private ConfigurableApplicationContext start(String bootstrapServers) {
    ConfigurableApplicationContext instance =
        new SpringApplicationBuilder(QuerySideApplication.class)
            .run(
                "--server.port=0",
                "--stockade.local-infra.database=" + DATABASE,
                "--stockade.reconciliation.interval=0s",
                "--stockade.kafka.bootstrap-servers=" + bootstrapServers,
                "--stockade.kafka.topic=" + topic,
                "--stockade.kafka.transactional-id=publisher-" + run,
                "--stockade.kafka.retry-interval=200ms",
                // A stopped publisher's claim is taken over after this long.
                "--axon.eventhandling.tokenstore.claim-timeout=3s");
    instances.add(instance);
    return instance;
  }

  private void append(ConfigurableApplicationContext instance, int count) {
    EventStore events = instance.getBean(EventStore.class);
    TransactionTemplate transaction = instance.getBean(TransactionTemplate.class);
    for (int i = 0; i < count; i++) {
      String sku = "k-" + run + "-" + UUID.randomUUID().toString().substring(0, 8);
      Events.append(events, transaction, sku, 0, new SkuRegistered(sku, 10, 5));
    }
  }

  /**
   * Waits until the topic holds a committed record for every event of the store, then checks that
   * it holds each once and that each partition's records are in position order.
   */
  private List<ConsumerRecord<String, byte[]>> awaitEveryEventOnce(
      ConfigurableApplicationContext instance, EmbeddedKafka broker) {
    JdbcTemplate jdbc = instance.getBean(JdbcTemplate.class);
    List<Long> stored =
        jdbc.queryForList(
            "select global_index from domain_event_entry order by global_index", Long.class);
    List<ConsumerRecord<String, byte[]>> records =
        await()
            .atMost(PATIENCE)
            .until(() -> readCommitted(broker), read -> read.size() >= stored.size());
    List<Long> positions = new ArrayList<>();
    Map<Integer, Long> lastOfPartition = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      long position = Long.parseLong(header(record, "stockade-position"));
      assertThat(position)
          .as("position order in partition %d", record.partition())
          .isGreaterThan(lastOfPartition.getOrDefault(record.partition(), 0L));
      lastOfPartition.put(record.partition(), position);
      positions.add(position);
    }
    Set<Long> unique = new HashSet<>(positions);
    assertThat(unique).as("no position twice").hasSize(positions.size());
    assertThat(unique).containsExactlyInAnyOrderElementsOf(stored);
    return records;
  }

  private long highestPublished(EmbeddedKafka broker) {
    return readCommitted(broker).stream()
        .mapToLong(r -> Long.parseLong(header(r, "stockade-position")))
        .max()
        .orElse(0);
  }

  /** The event store's head, read through an instance still running. */
  private long head() {
    ConfigurableApplicationContext running =
        instances.stream()
            .filter(ConfigurableApplicationContext::isActive)
            .findFirst()
            .orElseThrow();
    return running
        .getBean(JdbcTemplate.class)
        .queryForObject("select max(global_index) from domain_event_entry", Long.class);
  }

  private List<ConsumerRecord<String, byte[]>> readCommitted(EmbeddedKafka broker) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(properties, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(info -> new TopicPartition(topic, info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }

  private KafkaProducer<String, byte[]> zombie() {
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "publisher-" + run);
    return new KafkaProducer<>(properties, new StringSerializer(), new ByteArraySerializer());
  }

  private ProducerRecord<String, byte[]> record(String key, long position) {
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(topic, key, "{}".getBytes(StandardCharsets.UTF_8));
    record
        .headers()
        .add("stockade-position", Long.toString(position).getBytes(StandardCharsets.US_ASCII));
    return record;
  }

  /** The instance whose publisher publishes, or null. */
  private static ConfigurableApplicationContext publishing(
      ConfigurableApplicationContext... candidates) {
    for (ConfigurableApplicationContext candidate : candidates) {
      if (candidate.isActive()
          && candidate.getBean(KafkaPublisher.class).state() == KafkaPublisher.State.PUBLISHING) {
        return candidate;
      }
    }
    return null;
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  private static ApiClient client(ConfigurableApplicationContext instance) {
    return new ApiClient(
        Integer.parseInt(instance.getEnvironment().getProperty("local.server.port")));
  }
}
