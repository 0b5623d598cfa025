package io.stockade.query.feed;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.axonframework.eventhandling.tokenstore.UnableToClaimTokenException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.transaction.TransactionException;

/**
 * Publishes every stored event to Kafka, once per position, in position order.
 *
 * <p>It reads the event store as the feed does ({@link EventFeed}: no event skipped, even one
 * committed late below others) and sends each page of events in one Kafka transaction. One instance
 * publishes at a time ({@link PublisherLease}); every instance's producer has the same
 * transactional id, so a publisher that takes over fences the one before it (whose open transaction
 * is aborted and whose next send or commit fails), and only then reads where to go on: after the
 * highest position committed to the topic ({@link PublishedTopic}). A crash after Kafka's commit
 * and before the database heard of it therefore publishes nothing twice, and one before the commit
 * publishes nothing of the aborted transaction.
 *
 * <p>While the broker is unreachable it tries again every {@code retry-interval}, and the lag grows
 * (the metric {@code stockade.kafka.lag} and the health component {@code kafka}).
 */
final class KafkaPublisher implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(KafkaPublisher.class);

  /** What the publisher of this instance is doing. */
  enum State {
    STARTING,
    /** Another instance publishes. */
    STANDBY,
    PUBLISHING,
    BROKER_UNAVAILABLE,
    DATABASE_UNAVAILABLE,
    STOPPED
  }

  /** The most events of one Kafka transaction (whole pages of the feed). */
  static final int TRANSACTION = 10_000;

  private final KafkaPublishing settings;
  private final EventFeed feed;
  private final PublisherLease lease;
  private final PublishedTopic topic;
  private final CloudEventRecords records;
  private final Counter published;

  private volatile boolean running;
  private volatile Thread thread;
  private volatile State state = State.STARTING;
  private volatile long position = -1;
  private volatile Instant since = Instant.now();
  private volatile String failure;

  KafkaPublisher(
      KafkaPublishing settings,
      EventFeed feed,
      PublisherLease lease,
      CloudEventRecords records,
      MeterRegistry meters) {
    this.settings = settings;
    this.feed = feed;
    this.lease = lease;
    this.topic = new PublishedTopic(settings);
    this.records = records;
    this.published =
        Counter.builder("stockade.kafka.published")
            .description("events this instance published to Kafka")
            .register(meters);
    Gauge.builder("stockade.kafka.lag", this, KafkaPublisher::lag)
        .description(
            "positions of the event store not yet in the topic (the head's position minus the"
                + " last published one); NaN on an instance that does not publish")
        .register(meters);
    Gauge.builder("stockade.kafka.publishing", this, p -> p.state == State.PUBLISHING ? 1 : 0)
        .description("1 while this instance publishes to Kafka and the broker takes its records")
        .register(meters);
  }

  @Override
  public void start() {
    running = true;
    Thread publisher = new Thread(this::run, "kafka-publisher");
    publisher.setDaemon(true);
    thread = publisher;
    publisher.start();
  }

  @Override
  public void stop() {
    running = false;
    Thread publisher = thread;
    if (publisher != null) {
      publisher.interrupt();
      try {
        publisher.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** What the health component shows. */
  Map<String, Object> status() {
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("state", state.name());
    status.put("since", since.toString());
    status.put("topic", settings.topic());
    if (state == State.PUBLISHING || position >= 0) {
      status.put("position", position);
      status.put("lag", lag());
    }
    if (failure != null && state != State.PUBLISHING) {
      status.put("failure", failure);
    }
    return status;
  }

  State state() {
    return state;
  }

  /** The highest position this instance knows to be in the topic, -1 before it knows. */
  long position() {
    return position;
  }

  /** Read from the event store at every call (a scrape, a health check): one indexed query. */
  private double lag() {
    long known = position;
    if (known < 0) {
      return Double.NaN;
    }
    try {
      return Math.max(0, feed.head() - known);
    } catch (DataAccessException e) {
      return Double.NaN;
    }
  }

  private void run() {
    while (running) {
      try {
        if (lease.acquire()) {
          publish();
        } else {
          enter(State.STANDBY, null);
          position = -1;
          pause(lease.standbyInterval());
        }
      } catch (InterruptedException e) {
        break;
      } catch (ProducerFencedException
          | InvalidProducerEpochException
          | UnableToClaimTokenException e) {
        log.info("Another instance took over publishing to Kafka: {}", e.getMessage());
        enter(State.STANDBY, e.getMessage());
        position = -1;
      } catch (KafkaException e) {
        if (running) {
          failed(State.BROKER_UNAVAILABLE, e);
        }
      } catch (DataAccessException | TransactionException e) {
        failed(State.DATABASE_UNAVAILABLE, e);
      } catch (RuntimeException e) {
        log.error("Publishing to Kafka failed; trying again in {}", settings.retryInterval(), e);
        failed(state, e);
      }
    }
    enter(State.STOPPED, null);
    try {
      lease.release();
    } catch (RuntimeException e) {
      log.debug("Could not release the publisher's claim; it expires by itself", e);
    }
  }

  /** Publishes while this instance holds the lease; returns or throws when it should stop. */
  private void publish() throws InterruptedException {
    KafkaProducer<String, byte[]> producer = null;
    try (Admin admin = Admin.create(clientConfig())) {
      topic.create(admin);
      producer = producer();
      // First fence the publisher before this one (aborting its open transaction), then read.
      producer.initTransactions();
      long after = topic.lastPosition();
      position = after;
      lease.record(after);
      enter(State.PUBLISHING, null);
      log.info("Publishing events after position {} to Kafka topic {}", after, settings.topic());
      while (running) {
        FeedPage page = feed.read(after, EventFeed.MOST);
        if (page.events().isEmpty()) {
          lease.extend();
          pause(settings.pollInterval());
          continue;
        }
        // One transaction for the pages read while they come full, up to TRANSACTION events:
        // a backlog goes in a few large transactions, a trickle in one per page.
        producer.beginTransaction();
        int sent = 0;
        while (true) {
          for (FeedEvent event : page.events()) {
            failedAlready(producer.send(records.record(event)));
          }
          sent += page.events().size();
          after = page.next();
          if (page.events().size() < EventFeed.MOST || sent >= TRANSACTION) {
            break;
          }
          page = feed.read(after, EventFeed.MOST);
        }
        producer.commitTransaction();
        position = after;
        published.increment(sent);
        lease.record(after);
      }
    } finally {
      if (producer != null) {
        producer.close(Duration.ofSeconds(5));
      }
    }
  }

  /**
   * Throws a send's failure when it is known at once: a send that waited {@code max.block.ms} for
   * the topic's metadata (the broker gone) returns a failed future rather than throwing, and each
   * of a page's sends would wait as long again before the commit fails.
   */
  private static void failedAlready(Future<RecordMetadata> sent) throws InterruptedException {
    if (sent.isDone()) {
      try {
        sent.get();
      } catch (ExecutionException e) {
        throw e.getCause() instanceof KafkaException kafka
            ? kafka
            : new KafkaException("Send failed", e.getCause());
      }
    }
  }

  private KafkaProducer<String, byte[]> producer() {
    Map<String, Object> config = clientConfig();
    config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, settings.transactionalId());
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    config.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    config.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    config.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
    config.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 30_000);
    return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
  }

  private Map<String, Object> clientConfig() {
    Map<String, Object> config = new HashMap<>(settings.properties());
    config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    return config;
  }

  private void failed(State now, RuntimeException e) {
    if (state != now) {
      log.warn(
          "Kafka publisher: {} ({}); trying again every {}",
          now,
          reason(e),
          settings.retryInterval());
    }
    enter(now, reason(e));
    try {
      pause(settings.retryInterval());
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  /** The message of the exception and of its causes. */
  private static String reason(Throwable e) {
    StringBuilder reason = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      reason.append(": ").append(cause.getMessage());
    }
    return reason.toString();
  }

  private void enter(State now, String why) {
    if (state != now) {
      since = Instant.now();
    }
    state = now;
    failure = why;
  }

  private void pause(Duration duration) throws InterruptedException {
    Thread.sleep(duration.toMillis());
  }
}
