package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.TlsRedis;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The command side on a Redis that listens only on a TLS port ({@link TlsRedis}), trusted through
 * an SSL bundle: it registers a SKU and admits exactly its stock, so the gate's own connections
 * speak TLS, not only Spring's (which the rate limits use, on here). Skipped where the {@code
 * redis-server} on the {@code PATH} has no TLS.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      // A database of its own too: the gate's epoch lives there, and belongs to one Redis.
      "stockade.local-infra.database=stockade_test_gate_tls",
      "stockade.rate-limit.enabled=true",
      "stockade.warm-up.enabled=false"
    })
@DirtiesContext
class GateOverTlsIntegrationTest {

  private static TlsRedis redis;

  /** Before the context, whose Redis properties name it. */
  @BeforeAll
  static void startRedis() throws Exception {
    redis = TlsRedis.start();
  }

  @DynamicPropertySource
  static void tlsRedis(DynamicPropertyRegistry properties) {
    redis.register(properties);
  }

  @AfterAll
  static void stopRedis() {
    if (redis != null) {
      redis.close();
    }
  }

  @LocalServerPort private int port;

  @Test
  void theGateAdmitsExactlyTheStockOverTls() {
    ApiClient http = new ApiClient(port);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "tls-" + run;
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                http.send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 2}")
                    .getStatusCode()
                    .value(),
            status -> status == 201 || status == 200);

    List<Integer> answers =
        List.of("a", "b", "c").stream()
            .map(user -> reserve(http, "R-" + run + "-" + user, "u-" + user, sku))
            .map(answer -> answer.getStatusCode().value())
            .toList();

    assertThat(answers).containsExactly(201, 201, 409);
    JsonNode readiness = http.get("/actuator/health/readiness").getBody();
    assertThat(readiness.get("components").get("gate").get("details").get("state").asString())
        .isEqualTo("OPEN");
  }

  private static ResponseEntity<JsonNode> reserve(
      ApiClient http, String reservationId, String userId, String sku) {
    return http.send(
        HttpMethod.POST,
        "/api/reservations",
        "{\"reservationId\": \""
            + reservationId
            + "\", \"userId\": \""
            + userId
            + "\", \"lines\": [{\"skuId\": \""
            + sku
            + "\", \"quantity\": 1}]}");
  }
}
