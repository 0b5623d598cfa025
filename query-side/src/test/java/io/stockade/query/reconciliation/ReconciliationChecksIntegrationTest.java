package io.stockade.query.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.sku.SkuRegistered;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.web.ProblemException;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Requests share checks instead of running their own: within {@code max-age} they are answered the
 * latest report; a request that finds it older waits for the next check, which every request that
 * comes before it begins shares; a check that cannot end (here: the read model locked by the test)
 * leaves them 503 {@code reconciliation-running} with {@code Retry-After}, never a pile of checks.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.reconciliation.interval=0s",
      "stockade.reconciliation.max-age=1h",
      "stockade.reconciliation.request-wait=2s"
    })
@DirtiesContext
class ReconciliationChecksIntegrationTest {

  private static final EmbeddedRedis REDIS = GateFixture.ownRedis("reconciliation-checks-redis");

  @DynamicPropertySource
  static void ownRedis(DynamicPropertyRegistry properties) {
    GateFixture.useRedis(properties, REDIS);
  }

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private StringRedisTemplate redis;
  @Autowired private Reconciliation reconciliation;
  @Autowired private DataSource dataSource;
  @Autowired private JdbcTemplate jdbc;

  private ApiClient http;
  private GateFixture gate;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    gate = new GateFixture(eventStore, transaction, redis);
  }

  @AfterEach
  void cleanUp() {
    gate.clean();
  }

  @Test
  void requestsWithinTheMaxAgeAreAnsweredTheLatestReport() {
    String sku = GateFixture.unique("rc-cached");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.counters(sku, 10, 0, 0);
    JsonNode first = http.get("/api/reconciliation").getBody();
    assertThat(first.get("skus").findValuesAsString("skuId")).contains(sku);
    String generatedAt = first.get("generatedAt").asString();

    gate.increment(sku, "available", 3);

    for (int i = 0; i < 3; i++) {
      ResponseEntity<JsonNode> again = http.get("/api/reconciliation");
      assertThat(again.getStatusCode().value()).isEqualTo(200);
      assertThat(again.getBody().get("generatedAt").asString())
          .as("the same report, not a check of its own")
          .isEqualTo(generatedAt);
    }
  }

  @Test
  void aCheckThatCannotEndLeavesRequestsUnavailableAndNoneRunsASecondCheck() throws Exception {
    ReconciliationChecks checks =
        new ReconciliationChecks(
            reconciliation,
            Duration.ZERO,
            Duration.ZERO,
            Duration.ofMillis(1500),
            Duration.ZERO,
            Duration.ZERO);
    try (Connection lock = dataSource.getConnection();
        Statement statement = lock.createStatement()) {
      statement.execute("LOCK TABLES stock_level WRITE");
      try {
        List<CompletableFuture<Throwable>> requests = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
          requests.add(CompletableFuture.supplyAsync(() -> refusal(checks)));
        }
        for (CompletableFuture<Throwable> request : requests) {
          Throwable refused = request.get();
          assertThat(refused).isInstanceOf(ProblemException.class);
          ProblemException problem = (ProblemException) refused;
          assertThat(problem.status().value()).isEqualTo(503);
          assertThat(problem.code()).isEqualTo("reconciliation-running");
          assertThat(problem.headers().getFirst("Retry-After")).isNotBlank();
        }
        assertThat(checks.made())
            .as("one check waits for the read model; the others share the next one")
            .isBetween(1L, 2L);
        // That check is the one blocked by the lock (the server counts every instance's sessions:
        // other applications of the suite may be waiting too).
        assertThat(waitingForTheLock()).isPositive();
      } finally {
        statement.execute("UNLOCK TABLES");
      }
    }
    assertThat(checks.report().readModel().status())
        .as("once the read model can be read, a check ends")
        .isEqualTo("COMPARED");
  }

  private static Throwable refusal(ReconciliationChecks checks) {
    try {
      checks.report();
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  /** The sessions of this database's server whose query waits for the test's table lock. */
  private int waitingForTheLock() {
    return jdbc.queryForObject(
        "select count(*) from information_schema.processlist"
            + " where state like 'Waiting for table%'"
            + " and info = 'select sku_id, total, reserved, sold from stock_level'",
        Integer.class);
  }
}
