package io.stockade.query.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.platform.testing.ApiClient;
import io.stockade.query.Events;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/** {@code GET /api/audit/reservations/{id}}: a reservation's events, read from the event store. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ReservationAuditIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;

  private ApiClient http;
  private String run;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    run = UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void everyEventOfTheReservationComesBackOldestFirst() {
    String id = "O-" + run;
    String sku = "sku-" + run;
    List<ReservationLine> lines = List.of(new ReservationLine(sku, 3));
    Instant reservedAt = Instant.parse("2026-11-30T10:00:00.123456789Z");
    Instant expiresAt = reservedAt.plusSeconds(900);
    Instant confirmedAt = reservedAt.plusSeconds(60);
    // The event store keeps timestamps to the millisecond.
    Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    append(id, 0, new StockReserved(id, "u-7", lines, reservedAt, expiresAt, 42, 3));
    Instant between = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    append(id, 1, new StockConfirmed(id, "u-7", lines, confirmedAt));
    Instant after = Instant.now();
    // Another reservation's events are not part of the answer.
    append("X-" + run, 0, new StockReserved("X-" + run, "u-8", lines, reservedAt, expiresAt, 1, 3));

    ResponseEntity<JsonNode> answer = http.get("/api/audit/reservations/" + id);

    assertThat(answer.getStatusCode().value()).isEqualTo(200);
    JsonNode events = answer.getBody();
    assertThat(events).hasSize(2);

    JsonNode reserved = events.get(0);
    assertThat(reserved.get("type").asString()).isEqualTo("StockReserved");
    assertThat(reserved.get("sequenceNumber").asLong()).isZero();
    assertThat(Instant.parse(reserved.get("timestamp").asString())).isBetween(before, between);
    JsonNode payload = reserved.get("payload");
    assertThat(payload.get("reservationId").asString()).isEqualTo(id);
    assertThat(payload.get("userId").asString()).isEqualTo("u-7");
    assertThat(payload.get("lines")).hasSize(1);
    assertThat(payload.get("lines").get(0).get("skuId").asString()).isEqualTo(sku);
    assertThat(payload.get("lines").get(0).get("quantity").asInt()).isEqualTo(3);
    assertThat(Instant.parse(payload.get("reservedAt").asString())).isEqualTo(reservedAt);
    assertThat(Instant.parse(payload.get("expiresAt").asString())).isEqualTo(expiresAt);
    assertThat(payload.get("admissionSequence").asLong()).isEqualTo(42);
    assertThat(payload.get("gateEpoch").asLong()).isEqualTo(3);

    JsonNode confirmed = events.get(1);
    assertThat(confirmed.get("type").asString()).isEqualTo("StockConfirmed");
    assertThat(confirmed.get("sequenceNumber").asLong()).isEqualTo(1);
    assertThat(Instant.parse(confirmed.get("timestamp").asString())).isBetween(between, after);
    assertThat(confirmed.get("payload").get("reservationId").asString()).isEqualTo(id);
    assertThat(Instant.parse(confirmed.get("payload").get("confirmedAt").asString()))
        .isEqualTo(confirmedAt);
  }

  @Test
  void anExtensionAndAPartialConfirmationAreInTheTimelineWithWhatTheyChanged() {
    String id = "E-" + run;
    String a = "a-" + run;
    String b = "b-" + run;
    Instant reservedAt = Instant.parse("2026-11-30T10:00:00Z");
    Instant extendedAt = reservedAt.plusSeconds(600);
    Instant newEnd = reservedAt.plusSeconds(1800);
    Instant confirmedAt = reservedAt.plusSeconds(700);
    append(
        id,
        0,
        new StockReserved(
            id,
            "u-7",
            List.of(new ReservationLine(a, 3), new ReservationLine(b, 1)),
            reservedAt,
            reservedAt.plusSeconds(900),
            42,
            3));
    append(id, 1, new ReservationExtended(id, "u-7", newEnd, extendedAt));
    transaction.executeWithoutResult(
        status -> {
          append(
              id,
              2,
              new StockConfirmed(id, "u-7", List.of(new ReservationLine(a, 2)), confirmedAt));
          append(
              id,
              3,
              new StockReleased(
                  id,
                  "u-7",
                  List.of(new ReservationLine(a, 1), new ReservationLine(b, 1)),
                  StockReleased.NOT_CONFIRMED,
                  confirmedAt));
        });

    JsonNode events = http.get("/api/audit/reservations/" + id).getBody();

    assertThat(events.findValuesAsString("type"))
        .containsExactly("StockReserved", "ReservationExtended", "StockConfirmed", "StockReleased");
    assertThat(events.findValues("sequenceNumber").stream().map(JsonNode::asLong).toList())
        .containsExactly(0L, 1L, 2L, 3L);
    JsonNode extended = events.get(1).get("payload");
    assertThat(Instant.parse(extended.get("expiresAt").asString())).isEqualTo(newEnd);
    assertThat(Instant.parse(extended.get("extendedAt").asString())).isEqualTo(extendedAt);
    assertThat(extended.get("userId").asString()).isEqualTo("u-7");
    JsonNode sold = events.get(2).get("payload").get("lines");
    assertThat(sold).hasSize(1);
    assertThat(sold.get(0).get("skuId").asString()).isEqualTo(a);
    assertThat(sold.get(0).get("quantity").asInt()).isEqualTo(2);
    JsonNode back = events.get(3).get("payload");
    assertThat(back.get("reason").asString()).isEqualTo("NOT_CONFIRMED");
    assertThat(Instant.parse(back.get("releasedAt").asString())).isEqualTo(confirmedAt);
    assertThat(back.get("lines").findValuesAsString("skuId")).containsExactly(a, b);
    assertThat(back.get("lines").findValues("quantity").stream().map(JsonNode::asInt).toList())
        .containsExactly(1, 1);
  }

  @Test
  void aReservationWithoutEventsIsAProblem() {
    ResponseEntity<JsonNode> answer = http.get("/api/audit/reservations/absent-" + run);

    assertThat(answer.getStatusCode().value()).isEqualTo(404);
    assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
    assertThat(answer.getBody().get("type").asString()).endsWith("/unknown-reservation");
    assertThat(answer.getBody().get("reservationId").asString()).isEqualTo("absent-" + run);
  }

  @Test
  void theStreamOfASkuIsNotAReservation() {
    String sku = "sku-" + run;
    append(sku, 0, new SkuRegistered(sku, 10, null));

    ResponseEntity<JsonNode> answer = http.get("/api/audit/reservations/" + sku);

    assertThat(answer.getStatusCode().value()).isEqualTo(404);
    assertThat(answer.getBody().get("type").asString()).endsWith("/unknown-reservation");
  }

  @Test
  void malformedReservationIdIsRejected() {
    ResponseEntity<JsonNode> answer = http.get("/api/audit/reservations/a%7Bb%7D");

    assertThat(answer.getStatusCode().value()).isEqualTo(400);
    assertThat(answer.getBody().get("type").asString()).endsWith("/invalid-request");
  }

  private void append(String aggregateId, long sequence, Object payload) {
    Events.append(eventStore, transaction, aggregateId, sequence, payload);
  }
}
