package io.stockade.query.feed;

import io.stockade.localinfra.EmbeddedKafka;
import io.stockade.platform.testing.BenchRun;
import io.stockade.platform.testing.GeneratedEventStore;
import io.stockade.query.QuerySideApplication;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.axonframework.config.EventProcessingConfiguration;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Benchmark driver for {@code bench/kafka}: how fast the Kafka publisher puts an event store of
 * {@code events} events into a topic, beside the feed's own reading of the same store in the same
 * run.
 *
 * <ol>
 *   <li>starts the query side without Kafka on a database of its own (Flyway makes the tables),
 *       stops its projections, writes {@code events} events into the event table ({@link
 *       GeneratedEventStore}, as bench/feed and bench/replay do) and stops;
 *   <li>reads the whole store through the feed in pages of 1000 ({@link EventFeed#read}, the
 *       publisher's own reading, in-process): the feed's pages/s, the baseline;
 *   <li>starts a Kafka broker ({@link EmbeddedKafka}, KRaft, in this JVM) and the query side again
 *       with its publisher on it and its projections stopped, and times from the publisher's start
 *       of publishing until the topic holds the last position; this JVM's CPU time from the
 *       context's start until then (publisher and broker, which share it), per event published
 *       meanwhile.
 * </ol>
 *
 * Prints {@code RESULT feed <events> <seconds> <pages>} and {@code RESULT kafka <events> <seconds
 * from the publisher's start of publishing to the last> <cpu seconds> <events published while the
 * CPU was counted>} (from the moment the context had started). Options as key=value: host, port,
 * user, password, database (stockade_bench_kafka), redisHost, redisPort, events (1000000),
 * partitions (3).
 */
public final class KafkaPublishRate {

  private KafkaPublishRate() {}

  public static void main(String[] args) throws Exception {
    BenchRun run = BenchRun.of(args, "stockade_bench_kafka");
    int events = run.number("events", 1_000_000);
    run.createDatabase();
    Path brokerDir = Files.createTempDirectory("bench-kafka");
    try {
      ConfigurableApplicationContext writer = start(run, List.of());
      long last;
      long stored;
      try {
        stopProjections(writer);
        try (Connection connection = run.connect()) {
          GeneratedEventStore.write(connection, events, 100);
        }
        try (Connection connection = run.connect();
            Statement statement = connection.createStatement();
            ResultSet range =
                statement.executeQuery(
                    "select max(global_index), count(*) from domain_event_entry")) {
          range.next();
          last = range.getLong(1);
          stored = range.getLong(2);
        }
        System.out.printf("wrote %,d events, last position %d%n", stored, last);

        EventFeed feed = writer.getBean(EventFeed.class);
        long started = System.nanoTime();
        long after = 0;
        long read = 0;
        int pages = 0;
        while (after < last) {
          FeedPage page = feed.read(after, EventFeed.MOST);
          read += page.events().size();
          after = page.next();
          pages++;
        }
        System.out.printf(
            "RESULT feed %d %.3f %d%n", read, (System.nanoTime() - started) / 1e9, pages);
      } finally {
        writer.close();
      }

      try (EmbeddedKafka kafka = EmbeddedKafka.start(brokerDir)) {
        ConfigurableApplicationContext publisher =
            start(
                run,
                List.of(
                    "--stockade.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                    "--stockade.kafka.partitions=" + run.number("partitions", 3)));
        try {
          // The publisher starts with the context: CPU is counted from here, over the events
          // published from here on, and the time from when it began publishing.
          long cpuBefore = Cpu.ofThisProcess();
          stopProjections(publisher);
          KafkaPublisher kafkaPublisher = publisher.getBean(KafkaPublisher.class);
          long from = Math.max(0, kafkaPublisher.position());
          while (kafkaPublisher.position() < last) {
            Thread.sleep(20);
          }
          Instant done = Instant.now();
          double cpu = (Cpu.ofThisProcess() - cpuBefore) / 1e9;
          Instant since = Instant.parse((String) kafkaPublisher.status().get("since"));
          long inWindow;
          try (Connection connection = run.connect();
              Statement statement = connection.createStatement();
              ResultSet counted =
                  statement.executeQuery(
                      "select count(*) from domain_event_entry where global_index > " + from)) {
            counted.next();
            inWindow = counted.getLong(1);
          }
          System.out.printf(
              "RESULT kafka %d %.3f %.3f %d%n",
              stored, Duration.between(since, done).toMillis() / 1e3, cpu, inWindow);
        } finally {
          publisher.close();
        }
      }
    } finally {
      run.dropDatabase();
    }
    System.exit(0);
  }

  private static ConfigurableApplicationContext start(BenchRun run, List<String> more) {
    return new SpringApplicationBuilder(QuerySideApplication.class)
        .run(run.querySideArguments(more.toArray(String[]::new)));
  }

  private static void stopProjections(ConfigurableApplicationContext context) {
    EventProcessingConfiguration processing = context.getBean(EventProcessingConfiguration.class);
    for (String name : List.of("stock-projection", "reservation-projection")) {
      processing.eventProcessor(name, StreamingEventProcessor.class).orElseThrow().shutDown();
    }
  }

  /** The CPU time of this process, user and system, in nanoseconds, from /proc/self/stat. */
  private static final class Cpu {
    static long ofThisProcess() throws java.io.IOException {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command's name.
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
      return ticks * 10_000_000L;
    }
  }
}
