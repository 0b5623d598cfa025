package io.stockade.command.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.RecordedEvents;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionGate;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The recovery sweeper, on a Redis of its own: an admission whose event never came is abandoned in
 * the record and its units come back, within the bound; recorded reservations are untouched.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      // A database of its own too: the gate's epoch lives there, and belongs to one Redis.
      "stockade.local-infra.database=stockade_test_recovery",
      "stockade.recovery.enabled=true",
      "stockade.recovery.unrecorded-after=1s",
      "stockade.recovery.interval=300ms"
    })
@DirtiesContext
class RecoveryIntegrationTest {

  private static final EmbeddedRedis REDIS = RecordedEvents.ownRedis("recovery-redis");

  @DynamicPropertySource
  static void ownRedis(DynamicPropertyRegistry properties) {
    RecordedEvents.useRedis(properties, REDIS);
  }

  @LocalServerPort private int port;
  @Autowired private AdmissionGate gate;
  @Autowired private StringRedisTemplate redis;
  @Autowired private JdbcTemplate jdbc;

  @Test
  void anAdmissionNeverRecordedIsAbandonedAndItsUnitsComeBack() {
    ApiClient http = new ApiClient(port);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "sku-" + run;
    http.send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 5, \"perUserLimit\": 4}");
    // A recorded reservation, and one the gate admitted just before the service died.
    assertThat(reserve(http, "O-" + run + "-kept", sku).getStatusCode().value()).isEqualTo(201);
    gate.reserve(
        new Admission(
            "O-" + run + "-lost",
            "u-1",
            List.of(new ReservationLine(sku, 2)),
            Duration.ofSeconds(900),
            Instant.now()));
    assertThat(counters(sku, "available")).isEqualTo("1");

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(counters(sku, "available")).isEqualTo("3"));

    assertThat(count("O-" + run + "-lost", "ReservationAbandoned")).isEqualTo(1);
    assertThat(count("O-" + run + "-lost", "StockReserved")).isZero();
    assertThat(count("O-" + run + "-kept", "StockReserved")).isEqualTo(1);
    assertThat(count("O-" + run + "-kept", "ReservationAbandoned")).isZero();
    assertThat(counters(sku, "reserved")).isEqualTo("2");
    assertThat(redis.opsForHash().get("stockade:{g0}:sku:" + sku + ":holders", "u-1"))
        .as("the lost admission's allowance came back")
        .isEqualTo("2");
    assertThat(redis.opsForZSet().size("stockade:{g0}:gate:pending")).isZero();

    // The lost request, retried late, cannot resurrect it.
    ResponseEntity<JsonNode> late = reserve(http, "O-" + run + "-lost", sku);
    assertThat(late.getStatusCode().value()).isEqualTo(200);
    assertThat(late.getBody().get("status").asString()).isEqualTo("RELEASED");
    assertThat(count("O-" + run + "-lost", "StockReserved")).isZero();
    assertThat(counters(sku, "available")).isEqualTo("3");
  }

  private static ResponseEntity<JsonNode> reserve(ApiClient http, String id, String sku) {
    return http.send(
        HttpMethod.POST,
        "/api/reservations",
        "{\"reservationId\":\""
            + id
            + "\",\"userId\":\"u-1\",\"lines\":[{\"skuId\":\""
            + sku
            + "\",\"quantity\":2}]}");
  }

  private String counters(String sku, String field) {
    return String.valueOf(redis.opsForHash().get("stockade:{g0}:sku:" + sku, field));
  }

  private int count(String reservationId, String type) {
    return RecordedEvents.count(jdbc, reservationId, type);
  }
}
