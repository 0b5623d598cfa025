package io.stockade.command.reservation;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.command.RecordedEvents;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.Reserving;
import io.stockade.command.admission.SaleControl;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.Metrics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.TrackingToken;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The command side over HTTP against a real Redis and a real MariaDB/MySQL: what the contract
 * answers, what the gate holds in Redis and what the event table records.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ReservationHttpIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private StringRedisTemplate redis;
  @Autowired private JdbcTemplate jdbc;
  @Autowired private Reserving gate;
  @Autowired private SaleControl sale;

  @Autowired private GateFollowerConfiguration.FollowedEvents followed;

  private ApiClient http;
  private String run;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    run = UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void reservesThenRefusesWhatExceedsTheStock() {
    String sku = "sku-" + run;
    assertThat(register(sku, 3, null).getStatusCode().value()).isEqualTo(201);

    ResponseEntity<JsonNode> reserved = reserve("O-" + run, "u-1", line(sku, 2));
    assertThat(reserved.getStatusCode().value()).isEqualTo(201);
    assertThat(reserved.getBody().get("reservationId").asString()).isEqualTo("O-" + run);
    assertThat(reserved.getBody().get("status").asString()).isEqualTo("RESERVED");
    assertThat(reserved.getBody().get("lines").get(0).get("quantity").asInt()).isEqualTo(2);
    assertThat(reserved.getBody().get("expiresAt").asString()).endsWith("Z");
    assertThat(counters(sku)).containsEntry("available", "1").containsEntry("reserved", "2");
    assertThat(redis.opsForHash().get(intentKey("O-" + run), "state")).isEqualTo("RESERVED");
    assertThat(reservedEvents("O-" + run)).isEqualTo(1);

    ResponseEntity<JsonNode> refused = reserve("O-" + run + "-2", "u-2", line(sku, 2));
    assertThat(refused.getStatusCode().value()).isEqualTo(409);
    assertThat(refused.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
    assertThat(refused.getBody().get("type").asString()).endsWith("/insufficient-stock");
    // Returned by the controller rather than thrown: the same members as a thrown problem's.
    assertThat(refused.getBody().get("status").asInt()).isEqualTo(409);
    assertThat(refused.getBody().get("title").asString()).isEqualTo("Insufficient stock");
    assertThat(refused.getBody().get("instance").asString()).isEqualTo("/api/reservations");
    // Sent in one write, with its length, rather than flushed as a chunk (OneWriteResponses).
    assertThat(refused.getHeaders().getContentLength()).isPositive();
    assertThat(refused.getHeaders().containsHeader("Transfer-Encoding")).isFalse();
    assertThat(reserved.getHeaders().getContentLength()).isPositive();
    assertThat(refused.getBody().get("skuId").asString()).isEqualTo(sku);
    assertThat(refused.getBody().get("lineIndex").asInt()).isZero();
    assertThat(counters(sku)).containsEntry("available", "1").containsEntry("reserved", "2");
    assertThat(redis.hasKey(intentKey("O-" + run + "-2"))).isFalse();
    assertThat(reservedEvents("O-" + run + "-2")).isZero();
  }

  @Test
  void countsAdmissionsByOutcomeAndReasonAndTimesTheGate() {
    String sku = "metered-" + run;
    register(sku, 1, null);
    Metrics before = Metrics.scrape(http);

    reserve("O-" + run, "u-1", line(sku, 1));
    reserve("O-" + run, "u-1", line(sku, 1));
    reserve("O-" + run + "-2", "u-2", line(sku, 1));
    reserve("O-" + run + "-3", "u-3", line("absent-" + run, 1));
    Metrics after = Metrics.scrape(http);

    assertThat(increase(before, after, "stockade_admissions_total", "admitted", "none"))
        .isEqualTo(1);
    assertThat(increase(before, after, "stockade_admissions_total", "duplicate", "none"))
        .isEqualTo(1);
    assertThat(
            increase(before, after, "stockade_admissions_total", "refused", "insufficient-stock"))
        .isEqualTo(1);
    assertThat(increase(before, after, "stockade_admissions_total", "refused", "unknown-sku"))
        .isEqualTo(1);
    assertThat(
            after.valueOrZero("stockade_gate_latency_seconds_count", "operation", "reserve")
                - before.valueOrZero("stockade_gate_latency_seconds_count", "operation", "reserve"))
        .isEqualTo(4);
    assertThat(after.value("stockade_processor_lag_events", "processor", "gate-follower"))
        .isPresent();
  }

  /**
   * The gate follower reads the store through a source of its own, which hands over the events it
   * handles whole and, of the others, only the last of each page it reads (to carry the page's
   * token): two reservations then a confirmation of the first, read after they are stored, come as
   * the confirmation alone, its payload read.
   */
  @Test
  void theGateFollowerIsHandedTheEventsItHandlesOnly() {
    String sku = "followed-" + run;
    register(sku, 2, null);
    TrackingToken before = followed.createHeadToken();
    assertThat(reserve("F-" + run, "u-1", line(sku, 1)).getStatusCode().value()).isEqualTo(201);
    assertThat(reserve("F-" + run + "-2", "u-2", line(sku, 1)).getStatusCode().value())
        .isEqualTo(201);
    assertThat(
            http.send(HttpMethod.POST, "/api/reservations/F-" + run + "/confirm", null)
                .getStatusCode()
                .value())
        .isEqualTo(200);

    List<DomainEventMessage<?>> read =
        followed
            .storage()
            .readEvents(before, false)
            .filter(event -> event instanceof DomainEventMessage<?>)
            .<DomainEventMessage<?>>map(event -> (DomainEventMessage<?>) event)
            .filter(event -> event.getAggregateIdentifier().contains("F-" + run))
            .toList();

    assertThat(read)
        .extracting(event -> event.getPayloadType().getSimpleName())
        .containsExactly("StockConfirmed");
    assertThat(((StockConfirmed) read.get(0).getPayload()).reservationId()).isEqualTo("F-" + run);
  }

  private static double increase(
      Metrics before, Metrics after, String name, String outcome, String reason) {
    return after.valueOrZero(name, "outcome", outcome, "reason", reason)
        - before.valueOrZero(name, "outcome", outcome, "reason", reason);
  }

  @Test
  void aRequestIdTravelsFromTheRequestToTheEventsMetadata() {
    String sku = "traced-" + run;
    register(sku, 5, null);
    String body =
        "{\"reservationId\": \"O-%s\", \"userId\": \"u-1\", \"lines\": [{\"skuId\": \"%s\", \"quantity\": 1}]}";

    ResponseEntity<JsonNode> given =
        http.send(
            HttpMethod.POST,
            "/api/reservations",
            body.formatted(run, sku),
            Map.of("X-Request-Id", "req-" + run));
    ResponseEntity<JsonNode> made =
        http.send(
            HttpMethod.POST,
            "/api/reservations",
            body.formatted(run + "-2", sku),
            Map.of("X-Request-Id", "not {an} id"));

    assertThat(given.getStatusCode().value()).isEqualTo(201);
    assertThat(given.getHeaders().getFirst("X-Request-Id")).isEqualTo("req-" + run);
    assertThat(reservedMetaData("O-" + run))
        .contains("\"requestId\":\"req-" + run + "\"")
        .contains("\"reservationId\":\"O-" + run + "\"");
    String madeUp = made.getHeaders().getFirst("X-Request-Id");
    assertThat(UUID.fromString(madeUp)).isNotNull();
    assertThat(reservedMetaData("O-" + run + "-2")).contains("\"requestId\":\"" + madeUp + "\"");
  }

  private String reservedMetaData(String reservationId) {
    return new String(
        jdbc.queryForObject(
            "SELECT meta_data FROM domain_event_entry WHERE aggregate_identifier = ?"
                + " AND payload_type LIKE '%.StockReserved'",
            byte[].class, ReservationEvent.streamId(reservationId)),
        java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void reservesAllLinesOrNone() {
    String plenty = "plenty-" + run;
    String scarce = "scarce-" + run;
    register(plenty, 5, null);
    register(scarce, 1, null);

    ResponseEntity<JsonNode> refused = reserve("O-" + run, "u-1", line(plenty, 2), line(scarce, 2));

    assertThat(refused.getStatusCode().value()).isEqualTo(409);
    assertThat(refused.getBody().get("skuId").asString()).isEqualTo(scarce);
    assertThat(refused.getBody().get("lineIndex").asInt()).isEqualTo(1);
    assertThat(counters(plenty)).containsEntry("available", "5").containsEntry("reserved", "0");
    assertThat(counters(scarce)).containsEntry("available", "1").containsEntry("reserved", "0");
    assertThat(reservedEvents("O-" + run)).isZero();
  }

  @Test
  void mergesLinesOfTheSameSkuBeforeAdmission() {
    String sku = "sku-" + run;
    register(sku, 5, null);

    ResponseEntity<JsonNode> reserved = reserve("O-" + run, "u-1", line(sku, 1), line(sku, 2));

    assertThat(reserved.getStatusCode().value()).isEqualTo(201);
    assertThat(reserved.getBody().get("lines")).hasSize(1);
    assertThat(reserved.getBody().get("lines").get(0).get("quantity").asInt()).isEqualTo(3);
    assertThat(counters(sku)).containsEntry("available", "2").containsEntry("reserved", "3");
  }

  @Test
  void aRetryNeverReservesTwice() {
    String sku = "sku-" + run;
    register(sku, 5, null);

    ResponseEntity<JsonNode> first = reserve("O-" + run, "u-1", line(sku, 2));
    ResponseEntity<JsonNode> retry = reserve("O-" + run, "u-1", line(sku, 2));

    assertThat(first.getStatusCode().value()).isEqualTo(201);
    assertThat(retry.getStatusCode().value()).isEqualTo(200);
    assertThat(retry.getBody()).isEqualTo(first.getBody());
    assertThat(counters(sku)).containsEntry("available", "3");
    assertThat(reservedEvents("O-" + run)).isEqualTo(1);
  }

  @Test
  void concurrentRetriesOfOneReservationAreAnsweredAsOneReservation() throws Exception {
    String sku = "sku-" + run;
    register(sku, 50, null);
    int callers = 8;
    List<Integer> statuses = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      // Several rounds: the race (a retry recording the admission before the request that made
      // it) does not happen every time.
      for (int round = 0; round < 5; round++) {
        String id = "O-" + run + "-" + round;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
          answers.add(
              pool.submit(
                  () -> {
                    start.await();
                    return reserve(id, "u-1", line(sku, 2)).getStatusCode().value();
                  }));
        }
        start.countDown();
        for (Future<Integer> answer : answers) {
          statuses.add(answer.get(30, TimeUnit.SECONDS));
        }
        assertThat(reservedEvents(id)).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(statuses).as("no 422: every call had the same content").containsOnly(200, 201);
    assertThat(statuses).filteredOn(status -> status == 201).hasSize(5);
    assertThat(counters(sku)).containsEntry("available", "40").containsEntry("reserved", "10");
  }

  @Test
  void refusesAReservationIdReusedWithOtherContent() {
    String sku = "sku-" + run;
    register(sku, 5, null);
    reserve("O-" + run, "u-1", line(sku, 2));

    ResponseEntity<JsonNode> reused = reserve("O-" + run, "u-1", line(sku, 1));

    assertThat(reused.getStatusCode().value()).isEqualTo(422);
    assertThat(reused.getBody().get("type").asString()).endsWith("/reservation-id-reused");
    assertThat(counters(sku)).containsEntry("available", "3");
  }

  @Test
  void aRetryRecordsAReservationWhoseFirstAttemptStoppedAfterTheGate() {
    String sku = "sku-" + run;
    register(sku, 5, null);
    // The first attempt: admitted by the gate, then the service died before the event.
    gate.reserve(
        new Admission(
            "O-" + run,
            "u-1",
            List.of(new ReservationLine(sku, 2)),
            Duration.ofSeconds(900),
            Instant.now()));
    assertThat(reservedEvents("O-" + run)).isZero();

    ResponseEntity<JsonNode> retry = reserve("O-" + run, "u-1", line(sku, 2));

    assertThat(retry.getStatusCode().value()).isEqualTo(200);
    assertThat(retry.getBody().get("status").asString()).isEqualTo("RESERVED");
    assertThat(reservedEvents("O-" + run)).isEqualTo(1);
    assertThat(counters(sku)).containsEntry("available", "3").containsEntry("reserved", "2");
  }

  @Test
  void anIdReusedAfterTheGateForgotItIsRefusedAndNotRecordedTwice() {
    String sku = "sku-" + run;
    register(sku, 5, null);
    reserve("O-" + run, "u-1", line(sku, 2));
    // As if the intent record had outlived its retention.
    redis.delete(intentKey("O-" + run));

    ResponseEntity<JsonNode> again = reserve("O-" + run, "u-1", line(sku, 2));

    assertThat(again.getStatusCode().value()).isEqualTo(422);
    assertThat(again.getBody().get("type").asString()).endsWith("/reservation-id-reused");
    assertThat(reservedEvents("O-" + run)).isEqualTo(1);
    assertThat(counters(sku))
        .as("the second admission stored nothing: its units are back at once")
        .containsEntry("available", "3")
        .containsEntry("reserved", "2");
    assertThat(redis.hasKey(intentKey("O-" + run))).isFalse();
  }

  @Test
  void rejectsWhenPurchaseLimitWouldBeExceeded() {
    String sku = "sku-" + run;
    register(sku, 10, 2);
    assertThat(reserve("O-" + run, "u-1", line(sku, 2)).getStatusCode().value()).isEqualTo(201);

    ResponseEntity<JsonNode> refused = reserve("O-" + run + "-2", "u-1", line(sku, 1));

    assertThat(refused.getStatusCode().value()).isEqualTo(409);
    assertThat(refused.getBody().get("type").asString()).endsWith("/purchase-limit-exceeded");
    assertThat(refused.getBody().get("limit").asInt()).isEqualTo(2);
    assertThat(refused.getBody().get("alreadyReserved").asInt()).isEqualTo(2);
    assertThat(counters(sku)).containsEntry("available", "8");
    assertThat(reserve("O-" + run + "-3", "u-2", line(sku, 2)).getStatusCode().value())
        .isEqualTo(201);
  }

  /**
   * The sale as the gate decides it: 409 sale-not-open with Retry-After before it opens,
   * sale-paused while paused, sale-closed from its close on; each refusal is logged with its
   * outcome.
   */
  @Test
  void aSaleNotOpenPausedOrClosedIs409AndEachRefusalIsLogged() {
    String sku = "sku-" + run;
    register(sku, 10, null);
    Instant redisNow = sale.state(sku).orElseThrow().now();
    sale.schedule(sku, 1, redisNow.plus(Duration.ofHours(1)), null);

    ResponseEntity<JsonNode> notOpen = reserve("N-" + run, "u-1", line(sku, 1));

    assertThat(notOpen.getStatusCode().value()).isEqualTo(409);
    assertThat(notOpen.getBody().get("type").asString()).endsWith("/sale-not-open");
    assertThat(notOpen.getBody().get("opensAt").asString())
        .isEqualTo(redisNow.plus(Duration.ofHours(1)).toString());
    assertThat(Long.parseLong(notOpen.getHeaders().getFirst("Retry-After")))
        .isBetween(3500L, 3600L);

    sale.schedule(sku, 2, redisNow.minus(Duration.ofHours(1)), redisNow.plus(Duration.ofHours(1)));
    sale.pause(sku, 3, true);
    ResponseEntity<JsonNode> paused = reserve("P-" + run, "u-1", line(sku, 1));
    assertThat(paused.getStatusCode().value()).isEqualTo(409);
    assertThat(paused.getBody().get("type").asString()).endsWith("/sale-paused");

    sale.pause(sku, 4, false);
    assertThat(reserve("A-" + run, "u-1", line(sku, 1)).getStatusCode().value()).isEqualTo(201);
    sale.schedule(sku, 5, redisNow.minus(Duration.ofHours(2)), redisNow.minus(Duration.ofHours(1)));
    ResponseEntity<JsonNode> closed = reserve("C-" + run, "u-1", line(sku, 1));
    assertThat(closed.getStatusCode().value()).isEqualTo(409);
    assertThat(closed.getBody().get("type").asString()).endsWith("/sale-closed");
    assertThat(counters(sku)).containsEntry("available", "9");

    // The decisions in the gate's stream (the drain to gate_decision is off in these tests).
    List<String> decided = new ArrayList<>();
    for (MapRecord<String, Object, Object> entry :
        redis.opsForStream().range("stockade:{g0}:gate:decisions", Range.unbounded())) {
      String[] fields = String.valueOf(entry.getValue().get("d")).split(" ");
      if (fields[4].endsWith("-" + run) && fields[5].equals(sku)) {
        decided.add(fields[2] + " " + fields[4]);
      }
    }
    assertThat(decided).containsExactly("N N-" + run, "P P-" + run, "A A-" + run, "C C-" + run);
  }

  @Test
  void answersUnknownSkuWithItsId() {
    ResponseEntity<JsonNode> refused = reserve("O-" + run, "u-1", line("nope-" + run, 1));

    assertThat(refused.getStatusCode().value()).isEqualTo(404);
    assertThat(refused.getBody().get("type").asString()).endsWith("/unknown-sku");
    assertThat(refused.getBody().get("skuId").asString()).isEqualTo("nope-" + run);
    assertThat(redis.hasKey(intentKey("O-" + run))).isFalse();
  }

  @Test
  void badInputIsAProblemAndChangesNothing() {
    String sku = "sku-" + run;
    register(sku, 5, null);

    List<ResponseEntity<JsonNode>> answers =
        List.of(
            reserve("O-" + run + "{x}", "u-1", line(sku, 1)),
            reserve("O-" + run, "u:1", line(sku, 1)),
            reserve("O-" + run, "u-1", line(sku, 0)),
            reserve("O-" + run, "u-1", line(sku, -1)),
            reserve("O-" + run, "u-1", line(sku, 1_000_001)),
            reserve("O-" + run, "u-1"),
            exchange(HttpMethod.POST, "/api/reservations", "{\"reservationId\": "),
            exchange(
                HttpMethod.POST,
                "/api/reservations",
                "{\"reservationId\":\"O-"
                    + run
                    + "\",\"userId\":\"u-1\",\"lines\":[{\"skuId\":\""
                    + sku
                    + "\",\"quantity\":99999999999}]}"),
            exchange(HttpMethod.PUT, "/api/skus/" + "x".repeat(65), "{\"initialStock\":1}"),
            exchange(HttpMethod.PUT, "/api/skus/ok-" + run, "{\"initialStock\":-1}"));

    for (ResponseEntity<JsonNode> answer : answers) {
      assertThat(answer.getStatusCode().value()).isEqualTo(400);
      assertThat(answer.getHeaders().getContentType())
          .isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
      assertThat(answer.getBody().get("type").asString()).endsWith("/invalid-request");
      assertThat(answer.getBody().get("errors")).isNotEmpty();
      assertThat(answer.getBody().toString()).doesNotContain("Exception", "at io.", "at org.");
    }
    assertThat(counters(sku)).containsEntry("available", "5").containsEntry("reserved", "0");
    assertThat(redis.hasKey(intentKey("O-" + run))).isFalse();
    assertThat(redis.hasKey("stockade:{g0}:sku:ok-" + run)).isFalse();
    assertThat(reservedEvents("O-" + run)).isZero();
  }

  @Test
  void registeringIsIdempotentAndOtherValuesConflict() {
    String sku = "sku-" + run;

    ResponseEntity<JsonNode> created = register(sku, 500, 2);
    ResponseEntity<JsonNode> repeated = register(sku, 500, 2);
    ResponseEntity<JsonNode> conflicting = register(sku, 400, 2);

    assertThat(created.getStatusCode().value()).isEqualTo(201);
    assertThat(created.getBody().get("initialStock").asInt()).isEqualTo(500);
    assertThat(created.getBody().get("perUserLimit").asInt()).isEqualTo(2);
    assertThat(repeated.getStatusCode().value()).isEqualTo(200);
    assertThat(repeated.getBody()).isEqualTo(created.getBody());
    assertThat(conflicting.getStatusCode().value()).isEqualTo(409);
    assertThat(conflicting.getBody().get("type").asString()).endsWith("/sku-already-registered");
    assertThat(counters(sku))
        .containsEntry("available", "500")
        .containsEntry("limit", "2")
        .containsEntry("reserved", "0")
        .containsEntry("sold", "0");
    assertThat(events(sku)).isEqualTo(1);
  }

  @Test
  void concurrentRegistrationsOfOneSkuCreateItOnce() throws Exception {
    String sku = "sku-" + run;
    int callers = 8;
    List<Integer> statuses;
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> answers = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        answers.add(
            pool.submit(
                () -> {
                  start.await();
                  return register(sku, 50, null).getStatusCode().value();
                }));
      }
      start.countDown();
      statuses = new ArrayList<>();
      for (Future<Integer> answer : answers) {
        statuses.add(answer.get(30, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(statuses).containsOnly(200, 201);
    assertThat(statuses).filteredOn(status -> status == 201).hasSize(1);
    assertThat(events(sku)).isEqualTo(1);
    assertThat(counters(sku)).containsEntry("available", "50");
  }

  private ResponseEntity<JsonNode> register(String sku, int stock, Integer limit) {
    String body =
        limit == null
            ? "{\"initialStock\":" + stock + "}"
            : "{\"initialStock\":" + stock + ",\"perUserLimit\":" + limit + "}";
    return exchange(HttpMethod.PUT, "/api/skus/" + sku, body);
  }

  private ResponseEntity<JsonNode> reserve(String reservationId, String user, String... lines) {
    return exchange(
        HttpMethod.POST,
        "/api/reservations",
        "{\"reservationId\":\""
            + reservationId
            + "\",\"userId\":\""
            + user
            + "\",\"lines\":["
            + String.join(",", lines)
            + "]}");
  }

  private static String line(String sku, int quantity) {
    return "{\"skuId\":\"" + sku + "\",\"quantity\":" + quantity + "}";
  }

  private ResponseEntity<JsonNode> exchange(HttpMethod method, String path, String body) {
    return http.send(method, path, body);
  }

  private Map<Object, Object> counters(String sku) {
    return redis.opsForHash().entries("stockade:{g0}:sku:" + sku);
  }

  private static String intentKey(String reservationId) {
    return "stockade:{g0}:reservation:" + reservationId;
  }

  private int events(String aggregateId) {
    return RecordedEvents.count(jdbc, aggregateId, null);
  }

  private int reservedEvents(String reservationId) {
    return RecordedEvents.count(jdbc, reservationId, "StockReserved");
  }
}
