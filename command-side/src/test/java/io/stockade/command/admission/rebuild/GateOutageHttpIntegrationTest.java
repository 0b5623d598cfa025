package io.stockade.command.admission.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.command.RecordedEvents;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.Metrics;
import io.stockade.platform.testing.TestTokens;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The command side on a Redis of its own that the test stops and starts: while Redis is down a
 * reservation is refused at once with 503 and Retry-After and nothing is recorded; once Redis is
 * back the service admits again without being restarted. The rate limits are on and fail open: a
 * confirmation is still recorded while Redis is down.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      // A database of its own too: the gate's epoch lives there, and belongs to one Redis.
      "stockade.local-infra.database=stockade_test_outage",
      "stockade.rate-limit.enabled=true",
      // The test retries one user's reservation until Redis is back.
      "stockade.rate-limit.user.capacity=1000",
      "stockade.rate-limit.user.refill-per-second=1000"
    })
// Closed after this class: its event processors must not linger, attached to a Redis of its own.
@DirtiesContext
class GateOutageHttpIntegrationTest {

  private static final EmbeddedRedis REDIS = RecordedEvents.ownRedis("outage-redis");

  @DynamicPropertySource
  static void ownRedis(DynamicPropertyRegistry properties) {
    RecordedEvents.useRedis(properties, REDIS);
  }

  @LocalServerPort private int port;
  @Autowired private JdbcTemplate jdbc;

  @Test
  void refusesWhileRedisIsDownAndRecoversWithoutARestart() {
    ApiClient http = new ApiClient(port);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "sku-" + run;
    assertThat(
            http.send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 5}")
                .getStatusCode()
                .value())
        .isEqualTo(201);
    assertThat(reserve(http, "P-" + run, sku).getStatusCode().value()).isEqualTo(201);

    REDIS.stop();
    ResponseEntity<JsonNode> refused = reserve(http, "O-" + run, sku);

    assertThat(refused.getStatusCode().value()).isEqualTo(503);
    assertThat(refused.getBody().get("type").asString()).endsWith("/gate-unavailable");
    assertThat(refused.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isNotBlank();
    assertThat(events("O-" + run)).isZero();
    assertGate(http, 503, "DOWN", "CLOSED");
    // Neither the gate nor the rate limits can read Redis: the confirmation is recorded anyway.
    assertThat(
            http.send(HttpMethod.POST, "/api/reservations/P-" + run + "/confirm", null)
                .getStatusCode()
                .value())
        .isEqualTo(200);
    assertThat(events("P-" + run)).isEqualTo(2);

    REDIS.start();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> reserve(http, "O-" + run, sku).getStatusCode().value(), status -> status == 201);
    assertThat(events("O-" + run)).isEqualTo(1);
    assertGate(http, 200, "UP", "OPEN");
  }

  @Test
  void isNotReadyWhileAnotherInstanceRebuildsTheGateAndTakesTheRebuildOverOnceItsLeaseEnds() {
    ApiClient http = new ApiClient(port);
    await().atMost(Duration.ofSeconds(60)).until(() -> ready(http));

    // Another instance claims a rebuild, as GateEpochs.claim does, and Redis loses the gate.
    jdbc.update(
        "update gate_epoch set epoch = epoch + 1, state = 'REBUILDING', owner = 'another-instance',"
            + " changed_at = current_timestamp(6) where id = 1");
    REDIS.stop();
    REDIS.start();

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertGate(http, 503, "OUT_OF_SERVICE", "REBUILDING"));
    assertThat(http.get("/actuator/health/liveness").getStatusCode().value()).isEqualTo(200);

    // The other instance stopped answering: once its lease has passed (by the database's clock),
    // this one rebuilds.
    jdbc.update(
        "update gate_epoch set changed_at = current_timestamp(6) - interval 1 hour where id = 1");
    await().atMost(Duration.ofSeconds(60)).until(() -> ready(http));
    assertGate(http, 200, "UP", "OPEN");
  }

  private static boolean ready(ApiClient http) {
    return http.get("/actuator/health/readiness").getStatusCode().value() == 200;
  }

  /** The readiness probe's status and the gate component's status and state. */
  private static void assertGate(ApiClient http, int status, String health, String state) {
    ResponseEntity<JsonNode> readiness = http.get("/actuator/health/readiness");
    assertThat(readiness.getStatusCode().value()).isEqualTo(status);
    JsonNode gate = readiness.getBody().get("components").get("gate");
    assertThat(gate.get("status").asString()).isEqualTo(health);
    assertThat(gate.get("details").get("state").asString()).isEqualTo(state);
    // The gauge of the alert StockadeGateClosed follows the state the readiness check found.
    assertThat(
            Metrics.scrape(http.withToken(TestTokens.withRoles("metrics")))
                .value("stockade_gate_open"))
        .as("stockade_gate_open with the gate %s", state)
        .hasValue(state.equals("OPEN") ? 1 : 0);
  }

  private static ResponseEntity<JsonNode> reserve(ApiClient http, String id, String sku) {
    return http.send(
        HttpMethod.POST,
        "/api/reservations",
        "{\"reservationId\":\""
            + id
            + "\",\"userId\":\"u-1\",\"lines\":[{\"skuId\":\""
            + sku
            + "\",\"quantity\":1}]}");
  }

  private int events(String aggregateId) {
    return RecordedEvents.count(jdbc, aggregateId, null);
  }
}
