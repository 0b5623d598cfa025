package io.stockade.query.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.sku.SkuRegistered;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.TlsRedis;
import java.time.Duration;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The reconciliation reading the gate from a Redis that listens only on a TLS port ({@link
 * TlsRedis}), trusted through an SSL bundle: a SKU whose gate counters agree with its events is
 * CONSISTENT, the gate AVAILABLE. Skipped where the {@code redis-server} on the {@code PATH} has no
 * TLS.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"stockade.reconciliation.interval=0s", "stockade.reconciliation.max-age=0s"})
@DirtiesContext
class ReconciliationOverTlsIntegrationTest {

  private static TlsRedis tls;

  /** Before the context, whose Redis properties name it. */
  @BeforeAll
  static void startRedis() throws Exception {
    tls = TlsRedis.start();
  }

  @DynamicPropertySource
  static void tlsRedis(DynamicPropertyRegistry properties) {
    tls.register(properties);
  }

  @AfterAll
  static void stopRedis() {
    if (tls != null) {
      tls.close();
    }
  }

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private StringRedisTemplate redis;

  private GateFixture gate;

  @AfterEach
  void cleanUp() {
    if (gate != null) {
      gate.clean();
    }
  }

  @Test
  void theGateIsReadOverTls() {
    ApiClient http = new ApiClient(port);
    gate = new GateFixture(eventStore, transaction, redis);
    String sku = GateFixture.unique("rc-tls");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.counters(sku, 7, 3, 0);

    JsonNode report =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> http.get("/api/reconciliation/skus/" + sku).getBody(),
                answer -> answer.has("skus") && !answer.get("skus").isEmpty());

    assertThat(report.get("gate").get("status").asString()).isEqualTo("AVAILABLE");
    JsonNode line = report.get("skus").get(0);
    assertThat(ReconciliationIntegrationTest.numbers(line.get("gate")))
        .as("the counters written over TLS, read over TLS")
        .containsExactly(10L, 7L, 3L, 0L);
  }
}
