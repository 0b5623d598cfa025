package io.stockade.query.stock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockReplenished;
import io.stockade.platform.testing.ApiClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.axonframework.eventhandling.GenericDomainEventMessage;
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

/**
 * The query side against a real database: events appended to the shared event table (as the command
 * side appends them) reach the stock read model and its HTTP API.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StockProjectionIntegrationTest {

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
  void stockCatchesUpWithRegistrationAndReservations() {
    String sku = "sku-" + run;
    String other = "other-" + run;
    Instant now = Instant.now();
    append(sku, new SkuRegistered(sku, 500, 2));
    append(other, new SkuRegistered(other, 10, null));
    append(
        "O-" + run,
        new StockReserved(
            "O-" + run,
            "u-1",
            List.of(new ReservationLine(sku, 2), new ReservationLine(other, 1)),
            now,
            now.plusSeconds(900),
            1,
            1));

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              ResponseEntity<JsonNode> answer = get("/api/stock/" + sku);
              assertThat(answer.getStatusCode().value()).isEqualTo(200);
              assertThat(answer.getBody().get("available").asLong()).isEqualTo(498);
            });
    JsonNode stock = get("/api/stock/" + sku).getBody();
    assertThat(stock.get("skuId").asString()).isEqualTo(sku);
    assertThat(stock.get("total").asLong()).isEqualTo(500);
    assertThat(stock.get("reserved").asLong()).isEqualTo(2);
    assertThat(stock.get("sold").asLong()).isZero();
    assertThat(stock.get("perUserLimit").asInt()).isEqualTo(2);
    assertThat(Instant.parse(stock.get("updatedAt").asString())).isAfter(now.minusSeconds(60));

    JsonNode both = get("/api/stock?skuIds=" + sku + "," + other + ",absent-" + run).getBody();
    assertThat(both).hasSize(2);
    assertThat(both.findValuesAsString("skuId")).containsExactlyInAnyOrder(sku, other);
    assertThat(both.findValues("available").stream().map(JsonNode::asLong))
        .containsExactlyInAnyOrder(498L, 9L);
  }

  @Test
  void confirmedUnitsAreSoldReleasedOnesAvailableAndReplenishmentsAddToTheTotal() {
    String sku = "life-" + run;
    Instant now = Instant.now();
    List<ReservationLine> three = List.of(new ReservationLine(sku, 3));
    List<ReservationLine> two = List.of(new ReservationLine(sku, 2));
    append(sku, new SkuRegistered(sku, 10, null));
    append(sku, 1, new StockReplenished(sku, "R-1", 5));
    append("A-" + run, new StockReserved("A-" + run, "u-1", three, now, now, 1, 1));
    append("B-" + run, new StockReserved("B-" + run, "u-2", two, now, now, 2, 1));
    append("A-" + run, 1, new StockConfirmed("A-" + run, "u-1", three, now));
    append("B-" + run, 1, new StockReleased("B-" + run, "u-2", two, "CANCELLED", now));

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              ResponseEntity<JsonNode> answer = get("/api/stock/" + sku);
              assertThat(answer.getStatusCode().value()).isEqualTo(200);
              assertThat(answer.getBody().get("sold").asLong()).isEqualTo(3);
              assertThat(answer.getBody().get("reserved").asLong()).isZero();
            });
    JsonNode stock = get("/api/stock/" + sku).getBody();
    assertThat(stock.get("total").asLong()).isEqualTo(15);
    assertThat(stock.get("available").asLong()).isEqualTo(12);
  }

  @Test
  void unknownSkuIsAProblem() {
    ResponseEntity<JsonNode> answer = get("/api/stock/absent-" + run);

    assertThat(answer.getStatusCode().value()).isEqualTo(404);
    assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
    assertThat(answer.getBody().get("type").asString()).endsWith("/unknown-sku");
    assertThat(answer.getBody().get("skuId").asString()).isEqualTo("absent-" + run);
  }

  @Test
  void malformedSkuIdIsRejectedBeforeAnyQuery() {
    ResponseEntity<JsonNode> answer = get("/api/stock/a%7Bb%7D");

    assertThat(answer.getStatusCode().value()).isEqualTo(400);
    assertThat(answer.getBody().get("type").asString()).endsWith("/invalid-request");
  }

  private void append(String aggregateId, Object payload) {
    append(aggregateId, 0, payload);
  }

  private void append(String aggregateId, long sequence, Object payload) {
    transaction.executeWithoutResult(
        status ->
            eventStore.publish(
                new GenericDomainEventMessage<>(
                    payload.getClass().getSimpleName(), aggregateId, sequence, payload)));
  }

  private ResponseEntity<JsonNode> get(String path) {
    return http.get(path);
  }
}
