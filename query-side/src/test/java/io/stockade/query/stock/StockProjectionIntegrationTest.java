package io.stockade.query.stock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuEvent;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockReplenished;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.Metrics;
import io.stockade.platform.testing.TestTokens;
import io.stockade.query.Events;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The query side against a real database: events appended to the shared event table (as the command
 * side appends them) reach the stock read model and its HTTP API.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StockProjectionIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private StockProjection projection;
  @Autowired private StockMetrics stockMetrics;
  @Autowired private JdbcTemplate jdbc;

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
  void metricsShowTheRemainingStockOfTheSkusChangedLast() {
    String sku = "metered-" + run;
    String soldOut = "gone-" + run;
    Instant now = Instant.now();
    append(sku, new SkuRegistered(sku, 7, null));
    append(soldOut, new SkuRegistered(soldOut, 1, null));
    append(
        "O-" + run,
        new StockReserved(
            "O-" + run,
            "u-1",
            List.of(new ReservationLine(sku, 3), new ReservationLine(soldOut, 1)),
            now,
            now.plusSeconds(900),
            1,
            1));
    // The three events belong to three aggregates, which the projection's segments may apply in
    // any order: the sold-out SKU counts once its own registration has been applied too.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                available(sku).equals(Optional.of(4L))
                    && available(soldOut).equals(Optional.of(0L)));

    stockMetrics.refresh();
    Metrics metrics = Metrics.scrape(http);

    assertThat(metrics.value("stockade_stock_available_units", "sku", sku)).hasValue(4);
    assertThat(metrics.value("stockade_stock_available_units", "sku", soldOut)).hasValue(0);
    assertThat(metrics.value("stockade_stock_skus", "state", "sold-out").orElseThrow())
        .isGreaterThanOrEqualTo(1);
    assertThat(metrics.value("stockade_stock_skus", "state", "available").orElseThrow())
        .isGreaterThanOrEqualTo(1);
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

  @Test
  void aRedeliveredEventCountsOnce() {
    String sku = "again-" + run;
    append(sku, new SkuRegistered(sku, 10, null));
    StockReserved reserved =
        new StockReserved(
            "O-" + run,
            "u-1",
            List.of(new ReservationLine(sku, 2)),
            Instant.now(),
            Instant.now().plusSeconds(900),
            1,
            1);
    GenericDomainEventMessage<StockReserved> message =
        new GenericDomainEventMessage<>("Reservation", "O-" + run, 0, reserved);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> get("/api/stock/" + sku).getStatusCode().value() == 200);

    // The same event handled twice, as after a crash between handling and storing the token.
    transaction.executeWithoutResult(status -> projection.on(reserved, message));
    transaction.executeWithoutResult(status -> projection.on(reserved, message));

    JsonNode stock = get("/api/stock/" + sku).getBody();
    assertThat(stock.get("reserved").asLong()).isEqualTo(2);
    assertThat(stock.get("available").asLong()).isEqualTo(8);
  }

  @Test
  void aBatchHoldingARedeliveredEventCountsEachEventOnce() {
    String sku = "batch-" + run;
    append(sku, new SkuRegistered(sku, 10, null));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> get("/api/stock/" + sku).getStatusCode().value() == 200);
    Instant now = Instant.now();
    StockReserved first =
        new StockReserved("P-" + run, "u-1", List.of(new ReservationLine(sku, 2)), now, now, 1, 1);
    StockReserved second =
        new StockReserved("Q-" + run, "u-2", List.of(new ReservationLine(sku, 3)), now, now, 2, 1);
    GenericDomainEventMessage<StockReserved> firstMessage =
        new GenericDomainEventMessage<>("Reservation", "P-" + run, 0, first);
    GenericDomainEventMessage<StockReserved> secondMessage =
        new GenericDomainEventMessage<>("Reservation", "Q-" + run, 0, second);
    transaction.executeWithoutResult(status -> projection.on(first, firstMessage));

    // One batch, as a processor runs it: the first event again, then a new one. The batch's
    // ledger rows are written in one statement, which the redelivered row makes fail; the rows
    // are then written one by one and only the new one counts.
    transaction.executeWithoutResult(
        status ->
            DefaultUnitOfWork.startAndGet(firstMessage)
                .execute(
                    () -> {
                      projection.on(first, firstMessage);
                      projection.on(second, secondMessage);
                    }));

    JsonNode stock = get("/api/stock/" + sku).getBody();
    assertThat(stock.get("reserved").asLong()).isEqualTo(5);
    assertThat(stock.get("available").asLong()).isEqualTo(5);
    assertThat(audit(sku, null).get("totalEntries").asLong()).isEqualTo(3);
  }

  @Test
  void aSkuAsOfAnyInstantWithItsLedgerPaged() {
    String sku = "audit-" + run;
    Instant t0 = Instant.parse("2026-11-30T10:00:00Z");
    List<ReservationLine> three = List.of(new ReservationLine(sku, 3));
    List<ReservationLine> two = List.of(new ReservationLine(sku, 2));
    appendAt(sku, 0, new SkuRegistered(sku, 10, null), t0);
    appendAt(
        "A-" + run,
        0,
        new StockReserved("A-" + run, "u-1", three, t0, t0, 1, 1),
        t0.plusSeconds(10));
    appendAt(
        "B-" + run, 0, new StockReserved("B-" + run, "u-2", two, t0, t0, 2, 1), t0.plusSeconds(20));
    appendAt("A-" + run, 1, new StockConfirmed("A-" + run, "u-1", three, t0), t0.plusSeconds(30));
    appendAt(
        "B-" + run,
        1,
        new StockReleased("B-" + run, "u-2", two, "CANCELLED", t0),
        t0.plusSeconds(40));
    appendAt(sku, 1, new StockReplenished(sku, "R-" + run, 5), t0.plusSeconds(50));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              JsonNode now = audit(sku, null);
              return now.has("totalEntries") && now.get("totalEntries").asLong() == 6;
            });

    assertThat(numbers(audit(sku, "2026-11-30T09:59:59Z"))).containsExactly(0L, 0L, 0L, 0L);
    assertThat(numbers(audit(sku, "2026-11-30T10:00:00Z"))).containsExactly(10L, 10L, 0L, 0L);
    assertThat(numbers(audit(sku, "2026-11-30T10:00:15Z"))).containsExactly(10L, 7L, 3L, 0L);
    assertThat(numbers(audit(sku, "2026-11-30T10:00:25Z"))).containsExactly(10L, 5L, 5L, 0L);
    assertThat(numbers(audit(sku, "2026-11-30T10:00:35Z"))).containsExactly(10L, 5L, 2L, 3L);
    assertThat(numbers(audit(sku, "2026-11-30T10:00:45Z"))).containsExactly(10L, 7L, 0L, 3L);
    assertThat(numbers(audit(sku, null))).containsExactly(15L, 12L, 0L, 3L);

    JsonNode page =
        get("/api/audit/skus/" + sku + "?at=2026-11-30T10:00:35Z&page=1&size=2").getBody();
    assertThat(page.get("totalEntries").asLong()).isEqualTo(4);
    assertThat(page.get("ledger")).hasSize(2);
    assertThat(page.get("ledger").get(0).get("type").asString()).isEqualTo("StockReserved");
    assertThat(page.get("ledger").get(0).get("reference").asString()).isEqualTo("B-" + run);
    assertThat(page.get("ledger").get(0).get("change").get("available").asLong()).isEqualTo(-2);
    assertThat(page.get("ledger").get(1).get("type").asString()).isEqualTo("StockConfirmed");
    assertThat(page.get("ledger").get(1).get("change").get("sold").asLong()).isEqualTo(3);
    assertThat(Instant.parse(page.get("ledger").get(1).get("timestamp").asString()))
        .isEqualTo(t0.plusSeconds(30));

    assertThat(get("/api/audit/skus/absent-" + run).getStatusCode().value()).isEqualTo(404);
    ResponseEntity<JsonNode> bad = get("/api/audit/skus/" + sku + "?at=yesterday");
    assertThat(bad.getStatusCode().value()).isEqualTo(400);
    assertThat(bad.getBody().get("type").asString()).endsWith("/invalid-request");
    assertThat(get("/api/audit/skus/" + sku + "?size=0").getStatusCode().value()).isEqualTo(400);
  }

  @Test
  void anExtensionTouchesNoStockAndAPartialConfirmationGivesTheUnitsItDidNotSellBack() {
    String a = "pa-" + run;
    String b = "pb-" + run;
    String id = "PC-" + run;
    Instant t0 = Instant.parse("2026-11-30T11:00:00Z");
    appendAt(a, 0, new SkuRegistered(a, 10, 3), t0);
    appendAt(b, 0, new SkuRegistered(b, 10, null), t0);
    List<ReservationLine> reserved = List.of(new ReservationLine(a, 3), new ReservationLine(b, 2));
    appendAt(
        id,
        0,
        new StockReserved(id, "u-1", reserved, t0, t0.plusSeconds(900), 1, 1),
        t0.plusSeconds(10));
    appendAt(
        id,
        1,
        new ReservationExtended(id, "u-1", t0.plusSeconds(1800), t0.plusSeconds(20)),
        t0.plusSeconds(20));
    // As the command side stores a partial confirmation: the units sold, then in the same
    // transaction the rest, released NOT_CONFIRMED at the confirmation's time.
    Instant confirmedAt = t0.plusSeconds(30);
    transaction.executeWithoutResult(
        status -> {
          appendAt(
              id,
              2,
              new StockConfirmed(id, "u-1", List.of(new ReservationLine(a, 1)), confirmedAt),
              confirmedAt);
          appendAt(
              id,
              3,
              new StockReleased(
                  id,
                  "u-1",
                  List.of(new ReservationLine(a, 2), new ReservationLine(b, 2)),
                  StockReleased.NOT_CONFIRMED,
                  confirmedAt),
              confirmedAt);
        });
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              JsonNode now = audit(b, null);
              return now.has("totalEntries") && now.get("totalEntries").asLong() == 3;
            });
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> audit(a, null).path("totalEntries").asLong() == 4);

    JsonNode stock = get("/api/stock/" + a).getBody();
    assertThat(stock.get("total").asLong()).isEqualTo(10);
    assertThat(stock.get("available").asLong()).isEqualTo(9);
    assertThat(stock.get("reserved").asLong()).isZero();
    assertThat(stock.get("sold").asLong()).isEqualTo(1);
    stock = get("/api/stock/" + b).getBody();
    assertThat(stock.get("available").asLong()).isEqualTo(10);
    assertThat(stock.get("reserved").asLong()).isZero();
    assertThat(stock.get("sold").asLong()).isZero();

    // The extension is no entry of the ledger: as of just after it, the reservation holds its
    // units as before.
    assertThat(numbers(audit(a, "2026-11-30T11:00:25Z"))).containsExactly(10L, 7L, 3L, 0L);
    assertThat(audit(a, "2026-11-30T11:00:25Z").get("totalEntries").asLong()).isEqualTo(2);
    assertThat(numbers(audit(b, "2026-11-30T11:00:25Z"))).containsExactly(10L, 8L, 2L, 0L);
    assertThat(numbers(audit(a, "2026-11-30T11:00:30Z"))).containsExactly(10L, 9L, 0L, 1L);
    assertThat(numbers(audit(b, "2026-11-30T11:00:30Z"))).containsExactly(10L, 10L, 0L, 0L);

    JsonNode ledger = audit(a, null).get("ledger");
    assertThat(ledger.findValuesAsString("type"))
        .containsExactly("SkuRegistered", "StockReserved", "StockConfirmed", "StockReleased");
    assertThat(ledger.get(2).get("change").get("reserved").asLong()).isEqualTo(-1);
    assertThat(ledger.get(2).get("change").get("sold").asLong()).isEqualTo(1);
    assertThat(ledger.get(3).get("change").get("reserved").asLong()).isEqualTo(-2);
    assertThat(ledger.get(3).get("change").get("available").asLong()).isEqualTo(2);
    assertThat(ledger.get(3).get("globalIndex").asLong())
        .as("the release after the confirmation, at the same instant")
        .isGreaterThan(ledger.get(2).get("globalIndex").asLong());
    assertThat(audit(b, null).get("ledger").findValuesAsString("type"))
        .containsExactly("SkuRegistered", "StockReserved", "StockReleased");
  }

  @Test
  void anEventCommittedAfterLaterOnesIsInTheLedgerAtItsOwnPosition() throws Exception {
    String sku = "late-" + run;
    append(sku, new SkuRegistered(sku, 10, null));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> audit(sku, null).path("totalEntries").asLong(), is(1L));
    Instant now = Instant.now();
    String late = "L-" + run;
    String later = "M-" + run;
    // The late event takes its global index now and commits only after the later one: the
    // processor sees a gap at its index and, when it commits, fills the gap below the head.
    Events.Held lateCommit =
        Events.appendHeld(
            eventStore,
            transaction,
            late,
            0,
            new StockReserved(late, "u-1", List.of(new ReservationLine(sku, 2)), now, now, 1, 1));
    try {
      append(
          later,
          new StockReserved(later, "u-2", List.of(new ReservationLine(sku, 3)), now, now, 2, 1));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> audit(sku, null).path("totalEntries").asLong(), is(2L));
    } finally {
      lateCommit.release();
    }
    lateCommit.commit();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> audit(sku, null).path("totalEntries").asLong(), is(3L));

    long lateIndex = storedIndex(ReservationEvent.streamId(late));
    long laterIndex = storedIndex(ReservationEvent.streamId(later));
    assertThat(lateIndex).isLessThan(laterIndex);
    Map<String, Long> ledger = new HashMap<>();
    audit(sku, null)
        .get("ledger")
        .forEach(
            entry ->
                ledger.put(entry.get("reference").asString(), entry.get("globalIndex").asLong()));
    assertThat(ledger)
        .containsEntry(late, lateIndex)
        .containsEntry(later, laterIndex)
        .containsEntry(sku, storedIndex(SkuEvent.streamId(sku)));
  }

  private long storedIndex(String stream) {
    return jdbc.queryForObject(
        "select global_index from domain_event_entry where aggregate_identifier = ?",
        Long.class,
        stream);
  }

  @Test
  void anInstantTheLedgerCannotHoldIsAnInvalidRequestNotZeros() throws Exception {
    String sku = "far-" + run;
    append(sku, new SkuRegistered(sku, 10, null));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> audit(sku, null).path("totalEntries").asLong(), is(1L));

    // DATETIME(6) holds the years 1000 to 9999; beyond them a comparison matches no entry at all.
    for (String at :
        List.of("%2B10000-01-01T00:00:00Z", "0999-12-31T23:59:59Z", "-0001-01-01T00:00:00Z")) {
      HttpResponse<String> answer = rawGet("/api/audit/skus/" + sku + "?at=" + at);
      assertThat(answer.statusCode()).as(at).isEqualTo(400);
      JsonNode problem = JsonMapper.shared().readTree(answer.body());
      assertThat(problem.get("type").asString()).endsWith("/invalid-request");
      assertThat(problem.get("errors").findValuesAsString("field")).containsExactly("at");
    }
    assertThat(numbers(audit(sku, "9999-12-31T23:59:59.999999Z")))
        .containsExactly(10L, 10L, 0L, 0L);
    assertThat(numbers(audit(sku, "1000-01-01T00:00:00Z"))).containsExactly(0L, 0L, 0L, 0L);
  }

  @Test
  void aSubscriberToASkuReceivesItsStockNowAndAfterAReservation() throws Exception {
    String sku = "live-" + run;
    append(sku, new SkuRegistered(sku, 10, null));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> get("/api/stock/" + sku).getStatusCode().value() == 200);
    HttpClient client = HttpClient.newHttpClient();
    HttpResponse<Stream<String>> response =
        client.send(
            HttpRequest.newBuilder(
                    URI.create("http://localhost:" + port + "/api/stock/" + sku + "/stream"))
                .header("Accept", "text/event-stream")
                .header("Authorization", "Bearer " + TestTokens.ALL_ROLES)
                .build(),
            HttpResponse.BodyHandlers.ofLines());
    assertThat(response.statusCode()).isEqualTo(200);
    BlockingQueue<String> data = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () ->
                response
                    .body()
                    .filter(line -> line.startsWith("data:"))
                    .forEach(line -> data.add(line.substring(5))));
    reader.setDaemon(true);
    reader.start();

    try {
      String first = data.poll(30, TimeUnit.SECONDS);
      assertThat(first).contains("\"available\":10");
      Instant now = Instant.now();
      append(
          "O-" + run,
          new StockReserved(
              "O-" + run, "u-1", List.of(new ReservationLine(sku, 4)), now, now, 1, 1));
      String next = data.poll(60, TimeUnit.SECONDS);
      assertThat(next).contains("\"available\":6").contains("\"reserved\":4");
    } finally {
      response.body().close();
    }
  }

  private JsonNode audit(String sku, String at) {
    return get("/api/audit/skus/" + sku + (at == null ? "" : "?at=" + at)).getBody();
  }

  private static List<Long> numbers(JsonNode audit) {
    return List.of(
        audit.get("total").asLong(),
        audit.get("available").asLong(),
        audit.get("reserved").asLong(),
        audit.get("sold").asLong());
  }

  private void appendAt(String aggregateId, long sequence, Object payload, Instant at) {
    Events.append(eventStore, transaction, aggregateId, sequence, payload, at);
  }

  private void append(String aggregateId, Object payload) {
    append(aggregateId, 0, payload);
  }

  private void append(String aggregateId, long sequence, Object payload) {
    Events.append(eventStore, transaction, aggregateId, sequence, payload);
  }

  /** A GET of this exact path and query, with nothing encoded again. */
  private HttpResponse<String> rawGet(String pathAndQuery) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + port + pathAndQuery))
                .header("Authorization", "Bearer " + TestTokens.ALL_ROLES)
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  /** The SKU's available units as the read model answers them; empty while it answers no stock. */
  private Optional<Long> available(String skuId) {
    ResponseEntity<JsonNode> answer = get("/api/stock/" + skuId);
    return answer.getStatusCode().value() == 200 && answer.getBody().has("available")
        ? Optional.of(answer.getBody().get("available").asLong())
        : Optional.empty();
  }

  private ResponseEntity<JsonNode> get(String path) {
    return http.get(path);
  }
}
