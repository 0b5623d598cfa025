package io.stockade.command.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.RecordedEvents;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.Reserving;
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
  @Autowired private Reserving gate;
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

    // The lost request, retried late (its client was answered 503), cannot resurrect it, and is
    // not told it holds anything: 409, the reservation is not active, never recorded.
    ResponseEntity<JsonNode> late = reserve(http, "O-" + run + "-lost", sku);
    assertNeverRecorded(late, "O-" + run + "-lost");
    assertThat(count("O-" + run + "-lost", "StockReserved")).isZero();
    assertThat(counters(sku, "available")).isEqualTo("3");

    // Nor once the gate has forgotten it (its intent gone, as after Redis lost it): the gate admits
    // the id anew, the record refuses it, and only that admission's units go back.
    redis.delete("stockade:{g0}:reservation:O-" + run + "-lost");
    ResponseEntity<JsonNode> forgotten = reserve(http, "O-" + run + "-lost", sku);
    assertNeverRecorded(forgotten, "O-" + run + "-lost");
    assertThat(count("O-" + run + "-lost", "StockReserved")).isZero();
    assertThat(counters(sku, "available")).isEqualTo("3");
    assertThat(counters(sku, "reserved")).isEqualTo("2");

    // A reservation recorded and then released is another matter: its retry is answered as done.
    assertThat(
            http.send(HttpMethod.POST, "/api/reservations/O-" + run + "-kept/release", null)
                .getStatusCode()
                .value())
        .isEqualTo(200);
    ResponseEntity<JsonNode> released = reserve(http, "O-" + run + "-kept", sku);
    assertThat(released.getStatusCode().value()).isEqualTo(200);
    assertThat(released.getBody().get("status").asString()).isEqualTo("RELEASED");
  }

  private static void assertNeverRecorded(ResponseEntity<JsonNode> answer, String id) {
    assertThat(answer.getStatusCode().value()).as(answer.toString()).isEqualTo(409);
    assertThat(answer.getBody().get("type").asString()).endsWith("/reservation-not-active");
    assertThat(answer.getBody().get("reservationId").asString()).isEqualTo(id);
    assertThat(answer.getBody().get("reservationStatus").asString()).isEqualTo("RELEASED");
    assertThat(answer.getBody().get("releaseReason").asString()).isEqualTo("NOT_RECORDED");
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
