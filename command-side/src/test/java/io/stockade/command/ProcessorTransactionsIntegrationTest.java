package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stockade.localinfra.EmbeddedRedis;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.TransactionTimedOutException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * An event processor's transactions time out after {@code stockade.processing.transaction-timeout},
 * not after the requests' {@code spring.transaction.default-timeout}: here 2 s for requests and 10
 * s for processors, and a piece of work that reads the database after 2.5 s inside its transaction.
 * In a transaction of the requests' kind it fails; in a processor's handler it succeeds. Its own
 * database and Redis: the probe's event type is the test's own.
 */
@SpringBootTest(
    properties = {
      "stockade.local-infra.database=stockade_test_processor_transactions",
      "spring.transaction.default-timeout=2s",
      "stockade.processing.transaction-timeout=10s",
      "axon.eventhandling.processors.timeout-probe.mode=pooled",
      "stockade.warm-up.enabled=false"
    })
@Import(ProcessorTransactionsIntegrationTest.SlowHandler.class)
@DirtiesContext
class ProcessorTransactionsIntegrationTest {

  private static final EmbeddedRedis REDIS = RecordedEvents.ownRedis("processor-tx-redis");

  @DynamicPropertySource
  static void ownRedis(DynamicPropertyRegistry properties) {
    RecordedEvents.useRedis(properties, REDIS);
  }

  /** The probe's event: only the slow handler handles it. */
  record Probe(String id) {}

  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private JdbcTemplate jdbc;
  @Autowired private SlowHandler handler;

  @Test
  void aProcessorsTransactionOutlastsTheRequestsTimeout() throws Exception {
    assertThatThrownBy(() -> transaction.executeWithoutResult(status -> slowRead(jdbc)))
        .as("the requests' 2 s")
        .isInstanceOf(TransactionTimedOutException.class);

    String id = UUID.randomUUID().toString();
    transaction.executeWithoutResult(
        status -> eventStore.publish(GenericEventMessage.asEventMessage(new Probe(id))));

    assertThat(handler.read(id).get(60, TimeUnit.SECONDS))
        .as("the slow read inside the processor's transaction")
        .isEqualTo(1);
  }

  /** Sleeps 2.5 s, then reads the database: past the requests' timeout. */
  static int slowRead(JdbcTemplate jdbc) {
    try {
      Thread.sleep(2500);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return jdbc.queryForObject("select 1", Integer.class);
  }

  @ProcessingGroup("timeout-probe")
  static class SlowHandler {

    private final JdbcTemplate jdbc;
    private final Map<String, CompletableFuture<Integer>> reads = new ConcurrentHashMap<>();

    SlowHandler(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    CompletableFuture<Integer> read(String id) {
      return reads.computeIfAbsent(id, key -> new CompletableFuture<>());
    }

    @EventHandler
    void on(Probe probe) {
      CompletableFuture<Integer> read = read(probe.id());
      try {
        read.complete(slowRead(jdbc));
      } catch (RuntimeException e) {
        read.completeExceptionally(e);
      }
    }
  }
}
