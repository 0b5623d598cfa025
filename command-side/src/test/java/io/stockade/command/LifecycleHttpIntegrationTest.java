package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.sku.RegisterSkuCommand;
import io.stockade.api.sku.ReplenishStockCommand;
import io.stockade.platform.testing.ApiClient;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Confirm, release and replenish over HTTP against a real Redis and a real database: the event is
 * recorded, then the gate follows.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LifecycleHttpIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private StringRedisTemplate redis;
  @Autowired private JdbcTemplate jdbc;
  @Autowired private CommandGateway commands;

  private ApiClient http;
  private String run;
  private String sku;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    run = UUID.randomUUID().toString().substring(0, 8);
    sku = "sku-" + run;
    http.send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 10, \"perUserLimit\": 2}");
  }

  @Test
  void confirmTurnsReservedUnitsIntoSoldOnce() {
    reserve("O-" + run, "u-1", 2);

    ResponseEntity<JsonNode> confirmed = post("/api/reservations/O-" + run + "/confirm", null);
    ResponseEntity<JsonNode> repeated = post("/api/reservations/O-" + run + "/confirm", null);

    assertThat(confirmed.getStatusCode().value()).isEqualTo(200);
    assertThat(confirmed.getBody().get("status").asString()).isEqualTo("CONFIRMED");
    assertThat(confirmed.getBody().get("reservationId").asString()).isEqualTo("O-" + run);
    assertThat(repeated.getStatusCode().value()).isEqualTo(200);
    assertThat(repeated.getBody()).isEqualTo(confirmed.getBody());
    assertThat(counters())
        .containsEntry("available", "8")
        .containsEntry("reserved", "0")
        .containsEntry("sold", "2");
    assertThat(events("O-" + run, "StockConfirmed")).isEqualTo(1);

    ResponseEntity<JsonNode> release = post("/api/reservations/O-" + run + "/release", null);
    assertThat(release.getStatusCode().value()).isEqualTo(409);
    assertThat(release.getBody().get("type").asString()).endsWith("/reservation-not-active");
    // RFC 9457's status is the HTTP status; the reservation's is a member of its own.
    assertThat(release.getBody().get("status").isInt()).isTrue();
    assertThat(release.getBody().get("status").asInt()).isEqualTo(409);
    assertThat(release.getBody().get("reservationStatus").asString()).isEqualTo("CONFIRMED");
    assertThat(counters()).containsEntry("sold", "2").containsEntry("available", "8");
  }

  @Test
  void releaseReturnsUnitsAndAllowanceOnce() {
    reserve("O-" + run, "u-1", 2);

    ResponseEntity<JsonNode> released =
        post("/api/reservations/O-" + run + "/release", "{\"reason\": \"PAYMENT_FAILED\"}");
    ResponseEntity<JsonNode> repeated = post("/api/reservations/O-" + run + "/release", null);

    assertThat(released.getStatusCode().value()).isEqualTo(200);
    assertThat(released.getBody().get("status").asString()).isEqualTo("RELEASED");
    assertThat(repeated.getStatusCode().value()).isEqualTo(200);
    assertThat(counters()).containsEntry("available", "10").containsEntry("reserved", "0");
    assertThat(events("O-" + run, "StockReleased")).isEqualTo(1);
    assertThat(
            jdbc.queryForObject(
                "select convert(payload using utf8mb4) from domain_event_entry"
                    + " where aggregate_identifier = ? and payload_type like '%StockReleased'",
                String.class, ReservationEvent.streamId("O-" + run)))
        .contains("\"reason\":\"PAYMENT_FAILED\"");
    assertThat(reserve("O-" + run + "-2", "u-1", 2).getStatusCode().value())
        .as("the allowance came back")
        .isEqualTo(201);
    ResponseEntity<JsonNode> confirm = post("/api/reservations/O-" + run + "/confirm", null);
    assertThat(confirm.getStatusCode().value()).isEqualTo(409);
    assertThat(confirm.getBody().get("status").asInt()).isEqualTo(409);
    assertThat(confirm.getBody().get("reservationStatus").asString()).isEqualTo("RELEASED");
  }

  @Test
  void unknownReservationsAndBadReasonsAreProblems() {
    ResponseEntity<JsonNode> confirm = post("/api/reservations/nope-" + run + "/confirm", null);
    ResponseEntity<JsonNode> release = post("/api/reservations/nope-" + run + "/release", null);
    reserve("O-" + run, "u-1", 1);
    ResponseEntity<JsonNode> expired =
        post("/api/reservations/O-" + run + "/release", "{\"reason\": \"EXPIRED\"}");
    ResponseEntity<JsonNode> lowerCase =
        post("/api/reservations/O-" + run + "/release", "{\"reason\": \"oops\"}");

    assertThat(confirm.getStatusCode().value()).isEqualTo(404);
    assertThat(confirm.getBody().get("type").asString()).endsWith("/unknown-reservation");
    assertThat(release.getStatusCode().value()).isEqualTo(404);
    assertThat(expired.getStatusCode().value()).isEqualTo(400);
    assertThat(lowerCase.getStatusCode().value()).isEqualTo(400);
    assertThat(counters()).containsEntry("reserved", "1");
  }

  @Test
  void anUnpaidReservationExpiresAndItsUnitsComeBack() {
    ResponseEntity<JsonNode> reserved =
        post(
            "/api/reservations",
            "{\"reservationId\":\"O-"
                + run
                + "\",\"userId\":\"u-1\",\"holdSeconds\":2,\"lines\":[{\"skuId\":\""
                + sku
                + "\",\"quantity\":2}]}");
    assertThat(reserved.getStatusCode().value()).isEqualTo(201);
    assertThat(counters()).containsEntry("available", "8");

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(events("O-" + run, "StockReleased")).isEqualTo(1));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(counters())
                    .containsEntry("available", "10")
                    .containsEntry("reserved", "0"));
    assertThat(
            jdbc.queryForObject(
                "select convert(payload using utf8mb4) from domain_event_entry"
                    + " where aggregate_identifier = ? and payload_type like '%StockReleased'",
                String.class, ReservationEvent.streamId("O-" + run)))
        .contains("\"reason\":\"EXPIRED\"");
    ResponseEntity<JsonNode> confirm = post("/api/reservations/O-" + run + "/confirm", null);
    assertThat(confirm.getStatusCode().value()).isEqualTo(409);
  }

  @Test
  void replenishesOncePerReplenishmentId() {
    String body = "{\"replenishmentId\": \"R-" + run + "\", \"quantity\": 5}";

    ResponseEntity<JsonNode> applied = post("/api/skus/" + sku + "/replenishments", body);
    ResponseEntity<JsonNode> repeated = post("/api/skus/" + sku + "/replenishments", body);
    ResponseEntity<JsonNode> reused =
        post(
            "/api/skus/" + sku + "/replenishments",
            "{\"replenishmentId\": \"R-" + run + "\", \"quantity\": 6}");
    ResponseEntity<JsonNode> unknown = post("/api/skus/nope-" + run + "/replenishments", body);

    assertThat(applied.getStatusCode().value()).isEqualTo(201);
    assertThat(applied.getBody().get("totalStock").asLong()).isEqualTo(15);
    assertThat(repeated.getStatusCode().value()).isEqualTo(200);
    assertThat(repeated.getBody()).isEqualTo(applied.getBody());
    assertThat(reused.getStatusCode().value()).isEqualTo(422);
    assertThat(reused.getBody().get("type").asString()).endsWith("/replenishment-id-reused");
    assertThat(unknown.getStatusCode().value()).isEqualTo(404);
    assertThat(unknown.getBody().get("type").asString()).endsWith("/unknown-sku");
    assertThat(counters()).containsEntry("available", "15");
    assertThat(events(sku, "StockReplenished")).isEqualTo(1);
  }

  @Test
  void registrationsAndReplenishmentsWhoseGateUpdateNeverHappenedReachTheGate() {
    // Recorded as a request would record them, then stopped before the gate: a crash in between.
    String lost = "lost-" + run;
    commands.sendAndWait(new RegisterSkuCommand(lost, 7, 2));
    commands.sendAndWait(new ReplenishStockCommand(lost, "R-" + run, 5));

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(redis.opsForHash().entries("stockade:{g0}:sku:" + lost))
                    .containsEntry("available", "12")
                    .containsEntry("limit", "2"));
    assertThat(redis.opsForHash().get("stockade:{g0}:sku:" + lost + ":replenishments", "R-" + run))
        .isEqualTo("5");
  }

  private ResponseEntity<JsonNode> reserve(String reservationId, String user, int quantity) {
    return post("/api/reservations", ApiClient.reservation(reservationId, user, sku, quantity));
  }

  private ResponseEntity<JsonNode> post(String path, String body) {
    return http.send(HttpMethod.POST, path, body);
  }

  private Map<Object, Object> counters() {
    return redis.opsForHash().entries("stockade:{g0}:sku:" + sku);
  }

  private int events(String aggregateId, String type) {
    return RecordedEvents.count(jdbc, aggregateId, type);
  }
}
