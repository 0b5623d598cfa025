package io.stockade.query.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.Metrics;
import io.stockade.query.Events;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.axonframework.eventsourcing.eventstore.EventStore;
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

/**
 * The reservation read model against a real database: events appended to the event table reach
 * {@code reservation_view} and {@code GET /api/reservations/{id}}; events delivered again, or late,
 * change nothing.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ReservationProjectionIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private ReservationProjection projection;
  @Autowired private JdbcTemplate jdbc;
  @Autowired private ReservationMetrics reservationMetrics;

  private ApiClient http;
  private String run;
  // Whole microseconds, what the table keeps, and distinct from one another.
  private final Instant t0 = Instant.parse("2026-11-30T10:00:00.123456Z");
  private final Instant t1 = t0.plusSeconds(60);
  private final Instant t2 = t0.plusSeconds(120);
  private final Instant t3 = t0.plusSeconds(180);

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    run = UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void everyKindOfReservationShowsWithAllItsFields() {
    String reserved = "R-" + run;
    String confirmed = "C-" + run;
    String released = "L-" + run;
    String abandoned = "A-" + run;
    List<ReservationLine> two = List.of(new ReservationLine("s1-" + run, 2));
    List<ReservationLine> three =
        List.of(new ReservationLine("s1-" + run, 1), new ReservationLine("s2-" + run, 2));
    append(reserved, 0, new StockReserved(reserved, "u-1", two, t0, t3, 1, 1));
    append(confirmed, 0, new StockReserved(confirmed, "u-2", three, t0, t3, 2, 1));
    append(confirmed, 1, new StockConfirmed(confirmed, "u-2", three, t1));
    append(released, 0, new StockReserved(released, "u-3", two, t1, t3, 3, 1));
    append(released, 1, new StockReleased(released, "u-3", two, "CANCELLED", t2));
    append(abandoned, 0, new ReservationAbandoned(abandoned, "u-4", three, 4, t2));

    JsonNode view = awaitStatus(reserved, "RESERVED");
    assertThat(view.get("reservationId").asString()).isEqualTo(reserved);
    assertThat(view.get("userId").asString()).isEqualTo("u-1");
    assertLines(view, Map.of("s1-" + run, 2));
    assertInstant(view, "createdAt", t0);
    assertInstant(view, "expiresAt", t3);
    assertInstant(view, "confirmedAt", null);
    assertThat(view.get("confirmedLines").isNull()).as("not confirmed").isTrue();
    assertInstant(view, "releasedAt", null);
    assertThat(view.get("releaseReason").isNull()).isTrue();

    view = awaitStatus(confirmed, "CONFIRMED");
    assertThat(view.get("reservationId").asString()).isEqualTo(confirmed);
    assertThat(view.get("userId").asString()).isEqualTo("u-2");
    assertLines(view, Map.of("s1-" + run, 1, "s2-" + run, 2));
    assertInstant(view, "createdAt", t0);
    assertInstant(view, "expiresAt", t3);
    assertInstant(view, "confirmedAt", t1);
    assertThat(view.get("confirmedLines"))
        .as("a full confirmation sold every line")
        .isEqualTo(view.get("lines"));
    assertInstant(view, "releasedAt", null);
    assertThat(view.get("releaseReason").isNull()).isTrue();

    view = awaitStatus(released, "RELEASED");
    assertThat(view.get("userId").asString()).isEqualTo("u-3");
    assertLines(view, Map.of("s1-" + run, 2));
    assertInstant(view, "createdAt", t1);
    assertInstant(view, "expiresAt", t3);
    assertInstant(view, "confirmedAt", null);
    assertInstant(view, "releasedAt", t2);
    assertThat(view.get("releaseReason").asString()).isEqualTo("CANCELLED");
    assertThat(view.get("confirmedLines").isNull()).isTrue();

    // An admission never recorded: RELEASED for the API, NOT_RECORDED, ABANDONED in the table.
    view = awaitStatus(abandoned, "RELEASED");
    assertThat(view.get("userId").asString()).isEqualTo("u-4");
    assertLines(view, Map.of("s1-" + run, 1, "s2-" + run, 2));
    assertInstant(view, "createdAt", t2);
    assertInstant(view, "expiresAt", null);
    assertInstant(view, "confirmedAt", null);
    assertInstant(view, "releasedAt", t2);
    assertThat(view.get("releaseReason").asString()).isEqualTo("NOT_RECORDED");
    assertThat(row(abandoned).get("status")).isEqualTo("ABANDONED");

    assertThat(row(confirmed).get("last_sequence")).isEqualTo(1L);
    assertThat(row(reserved).get("last_sequence")).isEqualTo(0L);
    assertThat(row(released).get("lines_json"))
        .isEqualTo("[{\"skuId\":\"s1-" + run + "\",\"quantity\":2}]");
  }

  @Test
  void anExtensionMovesTheEndOfTheHoldAndNothingElse() {
    String id = "X-" + run;
    List<ReservationLine> two = List.of(new ReservationLine("s1-" + run, 2));
    Instant later = t3.plusSeconds(600);
    append(id, 0, new StockReserved(id, "u-1", two, t0, t3, 1, 1));
    append(id, 1, new ReservationExtended(id, "u-1", later, t1));

    awaitApplied(id, 1);
    JsonNode view = http.get("/api/reservations/" + id).getBody();
    assertThat(view.get("status").asString()).isEqualTo("RESERVED");
    assertInstant(view, "expiresAt", later);
    assertInstant(view, "createdAt", t0);
    assertLines(view, Map.of("s1-" + run, 2));
    assertInstant(view, "confirmedAt", null);
    assertThat(view.get("confirmedLines").isNull()).isTrue();
    assertInstant(view, "releasedAt", null);

    // Extended once more, then confirmed: it keeps the last end of its hold.
    Instant latest = later.plusSeconds(600);
    append(id, 2, new ReservationExtended(id, "u-1", latest, t2));
    append(id, 3, new StockConfirmed(id, "u-1", two, t3));
    view = awaitStatus(id, "CONFIRMED");
    assertInstant(view, "expiresAt", latest);
    assertThat(view.get("confirmedLines")).isEqualTo(view.get("lines"));
  }

  @Test
  void aPartialConfirmationStaysConfirmedAndTellsTheUnitsSoldAndThoseGivenBack() {
    String id = "PC-" + run;
    String a = "s1-" + run;
    String b = "s2-" + run;
    String c = "s3-" + run;
    List<ReservationLine> reserved =
        List.of(new ReservationLine(a, 3), new ReservationLine(b, 1), new ReservationLine(c, 2));
    append(id, 0, new StockReserved(id, "u-1", reserved, t0, t2, 1, 1));
    append(id, 1, new ReservationExtended(id, "u-1", t3, t1));
    // As the command side writes it: the units sold (c fully, b not at all), then the rest.
    append(
        id,
        2,
        new StockConfirmed(
            id, "u-1", List.of(new ReservationLine(a, 1), new ReservationLine(c, 2)), t2));
    append(
        id,
        3,
        new StockReleased(
            id,
            "u-1",
            List.of(new ReservationLine(a, 2), new ReservationLine(b, 1)),
            StockReleased.NOT_CONFIRMED,
            t2));

    awaitApplied(id, 3);
    JsonNode view = http.get("/api/reservations/" + id).getBody();
    assertThat(view.get("status").asString()).isEqualTo("CONFIRMED");
    assertLines(view, Map.of(a, 3, b, 1, c, 2));
    assertThat(view.get("confirmedLines")).hasSize(2);
    assertThat(view.get("confirmedLines").get(0).get("skuId").asString()).isEqualTo(a);
    assertThat(view.get("confirmedLines").get(0).get("quantity").asInt()).isEqualTo(1);
    assertThat(view.get("confirmedLines").get(1).get("skuId").asString()).isEqualTo(c);
    assertThat(view.get("confirmedLines").get(1).get("quantity").asInt()).isEqualTo(2);
    assertInstant(view, "confirmedAt", t2);
    assertInstant(view, "expiresAt", t3);
    // The units given back: when and why.
    assertInstant(view, "releasedAt", t2);
    assertThat(view.get("releaseReason").asString()).isEqualTo("NOT_CONFIRMED");
    Map<String, Object> row = row(id);
    assertThat(row.get("status")).isEqualTo("CONFIRMED");
    assertThat(row.get("confirmed_lines_json"))
        .isEqualTo(
            "[{\"skuId\":\"" + a + "\",\"quantity\":1},{\"skuId\":\"" + c + "\",\"quantity\":2}]");

    // Delivered again, the release still changes nothing.
    inTransaction(
        () ->
            projection.on(
                new StockReleased(id, "u-1", reserved, StockReleased.EXPIRED, t3), 3, t3));
    assertThat(row(id)).isEqualTo(row);
  }

  @Test
  void metricsCountAPartialConfirmationAsConfirmedAndNotAsReleased() {
    String id = "MP-" + run;
    List<ReservationLine> three = List.of(new ReservationLine("s-" + run, 3));
    reservationMetrics.refresh();
    Metrics before = Metrics.scrape(http);

    append(id, 0, new StockReserved(id, "u-1", three, t0, t3, 1, 1));
    append(id, 1, new StockConfirmed(id, "u-1", List.of(new ReservationLine("s-" + run, 1)), t1));
    append(
        id,
        2,
        new StockReleased(
            id,
            "u-1",
            List.of(new ReservationLine("s-" + run, 2)),
            StockReleased.NOT_CONFIRMED,
            t1));
    awaitApplied(id, 2);
    reservationMetrics.refresh();
    Metrics after = Metrics.scrape(http);

    assertThat(
            after.valueOrZero("stockade_reservations", "status", "CONFIRMED")
                - before.valueOrZero("stockade_reservations", "status", "CONFIRMED"))
        .isEqualTo(1);
    for (String status : List.of("RESERVED", "RELEASED")) {
      assertThat(
              after.valueOrZero("stockade_reservations", "status", status)
                  - before.valueOrZero("stockade_reservations", "status", status))
          .as(status)
          .isZero();
    }
    assertThat(
            after.valueOrZero("stockade_reservations_expired_total")
                - before.valueOrZero("stockade_reservations_expired_total"))
        .isZero();
  }

  @Test
  void metricsCountReservationsByStatusAndTheExpiredOnes() {
    String reserved = "MR-" + run;
    String confirmed = "MC-" + run;
    String expired = "ME-" + run;
    List<ReservationLine> one = List.of(new ReservationLine("s-" + run, 1));
    reservationMetrics.refresh();
    Metrics before = Metrics.scrape(http);

    append(reserved, 0, new StockReserved(reserved, "u-1", one, t0, t3, 1, 1));
    append(confirmed, 0, new StockReserved(confirmed, "u-2", one, t0, t3, 2, 1));
    append(confirmed, 1, new StockConfirmed(confirmed, "u-2", one, t1));
    append(expired, 0, new StockReserved(expired, "u-3", one, t0, t1, 3, 1));
    append(expired, 1, new StockReleased(expired, "u-3", one, StockReleased.EXPIRED, t1));
    awaitStatus(reserved, "RESERVED");
    awaitStatus(confirmed, "CONFIRMED");
    awaitStatus(expired, "RELEASED");
    reservationMetrics.refresh();
    Metrics after = Metrics.scrape(http);

    for (String status : List.of("RESERVED", "CONFIRMED", "RELEASED")) {
      assertThat(
              after.valueOrZero("stockade_reservations", "status", status)
                  - before.valueOrZero("stockade_reservations", "status", status))
          .as(status)
          .isEqualTo(1);
    }
    assertThat(
            after.valueOrZero("stockade_reservations_expired_total")
                - before.valueOrZero("stockade_reservations_expired_total"))
        .isEqualTo(1);
  }

  @Test
  void anEventDeliveredAgainChangesNothing() {
    String id = "twice-" + run;
    List<ReservationLine> lines = List.of(new ReservationLine("s-" + run, 2));
    inTransaction(
        () -> {
          projection.on(new StockReserved(id, "u-1", lines, t0, t3, 1, 1), 0, t0);
          projection.on(new StockConfirmed(id, "u-1", lines, t1), 1, t1);
        });
    Map<String, Object> confirmed = row(id);
    assertThat(confirmed.get("status")).isEqualTo("CONFIRMED");
    assertThat(confirmed.get("last_sequence")).isEqualTo(1L);

    // The same events again, with different contents to show that none of it is taken.
    inTransaction(
        () -> {
          projection.on(new StockConfirmed(id, "u-1", lines, t2), 1, t2);
          projection.on(new StockReserved(id, "u-9", List.of(), t2, t2, 9, 9), 0, t2);
          projection.on(new ReservationAbandoned(id, "u-9", lines, 9, t2), 0, t2);
        });
    assertThat(row(id)).isEqualTo(confirmed);
    JsonNode view = http.get("/api/reservations/" + id).getBody();
    assertThat(view.get("status").asString()).isEqualTo("CONFIRMED");
    assertThat(view.get("userId").asString()).isEqualTo("u-1");
    assertInstant(view, "createdAt", t0);
    assertInstant(view, "confirmedAt", t1);
  }

  @Test
  void anEventOlderThanTheLastAppliedIsIgnored() {
    String id = "late-" + run;
    List<ReservationLine> lines = List.of(new ReservationLine("s-" + run, 1));
    inTransaction(
        () -> {
          projection.on(new StockReserved(id, "u-1", lines, t0, t3, 1, 1), 0, t0);
          projection.on(new StockReleased(id, "u-1", lines, "EXPIRED", t3), 2, t3);
        });
    Map<String, Object> released = row(id);

    inTransaction(() -> projection.on(new StockConfirmed(id, "u-1", lines, t1), 1, t1));
    inTransaction(() -> projection.on(new StockReleased(id, "u-1", lines, "CANCELLED", t2), 1, t2));

    assertThat(row(id)).isEqualTo(released);
    assertThat(released.get("last_sequence")).isEqualTo(2L);
    JsonNode view = http.get("/api/reservations/" + id).getBody();
    assertThat(view.get("status").asString()).isEqualTo("RELEASED");
    assertThat(view.get("releaseReason").asString()).isEqualTo("EXPIRED");
    assertInstant(view, "releasedAt", t3);
    assertInstant(view, "confirmedAt", null);
  }

  @Test
  void aChangeToAReservationTheModelDoesNotKnowChangesNothing() {
    String id = "orphan-" + run;
    List<ReservationLine> lines = List.of(new ReservationLine("s-" + run, 1));

    inTransaction(() -> projection.on(new StockConfirmed(id, "u-1", lines, t1), 1, t1));

    assertThat(jdbc.queryForList("SELECT 1 FROM reservation_view WHERE reservation_id = ?", id))
        .isEmpty();
  }

  @Test
  void theResetHandlerEmptiesTheTable() {
    String id = "reset-" + run;
    inTransaction(
        () ->
            projection.on(
                new StockReserved(
                    id, "u-1", List.of(new ReservationLine("s-" + run, 1)), t0, t3, 1, 1),
                0,
                t0));
    assertThat(count()).isPositive();

    // Rolled back, so that the rows of other tests stay.
    transaction.executeWithoutResult(
        status -> {
          projection.reset();
          assertThat(count()).isZero();
          status.setRollbackOnly();
        });

    assertThat(row(id).get("status")).isEqualTo("RESERVED");
  }

  @Test
  void unknownReservationIsAProblem() {
    ResponseEntity<JsonNode> answer = http.get("/api/reservations/absent-" + run);

    assertThat(answer.getStatusCode().value()).isEqualTo(404);
    assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
    assertThat(answer.getBody().get("type").asString()).endsWith("/unknown-reservation");
    assertThat(answer.getBody().get("reservationId").asString()).isEqualTo("absent-" + run);
  }

  @Test
  void malformedReservationIdIsRejectedBeforeAnyQuery() {
    ResponseEntity<JsonNode> answer = http.get("/api/reservations/a%7Bb%7D");

    assertThat(answer.getStatusCode().value()).isEqualTo(400);
    assertThat(answer.getBody().get("type").asString()).endsWith("/invalid-request");
  }

  private JsonNode awaitStatus(String reservationId, String status) {
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              ResponseEntity<JsonNode> answer = http.get("/api/reservations/" + reservationId);
              assertThat(answer.getStatusCode().value()).isEqualTo(200);
              assertThat(answer.getBody().get("status").asString()).isEqualTo(status);
            });
    return http.get("/api/reservations/" + reservationId).getBody();
  }

  /** Waits until the reservation's row has applied its event of this sequence number. */
  private void awaitApplied(String reservationId, long sequence) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                jdbc.queryForList(
                        "SELECT last_sequence FROM reservation_view WHERE reservation_id = ?",
                        Long.class,
                        reservationId)
                    .contains(sequence));
  }

  private static void assertLines(JsonNode view, Map<String, Integer> expected) {
    JsonNode lines = view.get("lines");
    assertThat(lines).hasSize(expected.size());
    for (JsonNode line : lines) {
      assertThat(line.get("quantity").asInt())
          .isEqualTo(expected.get(line.get("skuId").asString()));
    }
  }

  private static void assertInstant(JsonNode view, String field, Instant expected) {
    assertThat(view.has(field)).as(field + " is present").isTrue();
    if (expected == null) {
      assertThat(view.get(field).isNull()).as(field + " is null").isTrue();
    } else {
      assertThat(Instant.parse(view.get(field).asString()))
          .as(field)
          .isEqualTo(expected.truncatedTo(ChronoUnit.MICROS));
    }
  }

  private Map<String, Object> row(String reservationId) {
    return jdbc.queryForMap(
        "SELECT reservation_id, user_id, status, lines_json, created_at, expires_at, confirmed_at,"
            + " confirmed_lines_json, released_at, release_reason, last_sequence, updated_at"
            + " FROM reservation_view WHERE reservation_id = ?",
        reservationId);
  }

  private long count() {
    return jdbc.queryForObject("SELECT COUNT(*) FROM reservation_view", Long.class);
  }

  private void inTransaction(Runnable work) {
    transaction.executeWithoutResult(status -> work.run());
  }

  private void append(String aggregateId, long sequence, Object payload) {
    Events.append(eventStore, transaction, aggregateId, sequence, payload);
  }
}
