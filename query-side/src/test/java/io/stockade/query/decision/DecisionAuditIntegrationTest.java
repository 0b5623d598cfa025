package io.stockade.query.decision;

import static io.stockade.query.decision.GateDecisionRows.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.sku.SkuRegistered;
import io.stockade.platform.testing.ApiClient;
import io.stockade.query.Events;
import io.stockade.query.decision.GateDecisionRows.Row;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.StreamSupport;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET /api/audit/skus/{skuId}/decisions} and {@code GET /api/audit/users/{userId}/decisions}
 * over rows of {@code gate_decision} written as the command side writes them. Marks every 4 rows,
 * so that a stream of more than 8 rows is paged through its marks and a shorter one without.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "stockade.decisions.mark-interval=4")
class DecisionAuditIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private JdbcTemplate jdbc;
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
  void aSkusDecisionsComeInTheGatesOrderTiesWithinAMillisecondByEntryAndBucketsMergedByTime() {
    String sku = "sku-" + run;
    // Written out of order: the answer's order is the table's, not the insertion's.
    GateDecisionRows.insert(
        jdbc,
        List.of(
            row(sku, T0 + 5, 0, 1, 1, 104, "INSUFFICIENT_STOCK", 0),
            row(sku, T0 + 2, 7, 0, 1, 102, "ADMITTED", 3),
            row(sku, T0 + 2, 3, 0, 1, 101, "ADMITTED", 4),
            row(sku, T0, 9, 0, 1, 100, "ADMITTED", 5),
            row(sku, T0 + 3, 1, 1, 1, 201, "ADMITTED", 9),
            row(sku, T0 + 2, 7, 1, 1, 200, "PURCHASE_LIMIT_EXCEEDED", 10),
            row("other-" + run, T0 + 1, 0, 0, 1, 1, "ADMITTED", 1)));

    ResponseEntity<JsonNode> answer = http.get("/api/audit/skus/" + sku + "/decisions");

    assertThat(answer.getStatusCode().value()).isEqualTo(200);
    JsonNode body = answer.getBody();
    assertThat(body.get("skuId").asString()).isEqualTo(sku);
    assertThat(sequences(body)).containsExactly(100L, 101L, 102L, 200L, 201L, 104L);
    assertThat(body.get("total").asLong()).isEqualTo(6);
    assertThat(body.get("page").asInt()).isZero();
    assertThat(body.get("size").asInt()).isEqualTo(100);
    assertThat(body.has("sellout")).isFalse();
    JsonNode first = body.get("decisions").get(0);
    assertThat(Instant.parse(first.get("at").asString())).isEqualTo(Instant.ofEpochMilli(T0));
    assertThat(first.get("reservationId").asString()).isEqualTo("O-" + sku + "-100");
    assertThat(first.get("userId").asString()).isEqualTo("u-100-" + run);
    assertThat(first.get("quantity").asInt()).isEqualTo(2);
    assertThat(first.get("outcome").asString()).isEqualTo("ADMITTED");
    assertThat(first.get("availableAfter").asLong()).isEqualTo(5);
    assertThat(first.get("bucket").asInt()).isZero();
    assertThat(first.has("skuId")).isFalse();
    assertThat(outcomes(body))
        .containsExactly(
            "ADMITTED",
            "ADMITTED",
            "ADMITTED",
            "PURCHASE_LIMIT_EXCEEDED",
            "ADMITTED",
            "INSUFFICIENT_STOCK");
    assertThat(buckets(body)).containsExactly(0, 0, 0, 1, 1, 1);
  }

  @Test
  void aWithdrawnAdmissionAndARestoredOneAreShownAsTheCommandSideWroteThem() {
    String sku = "restored-" + run;
    GateDecisionRows.insert(
        jdbc,
        List.of(
            row(sku, T0, 0, 0, 1, 100, "ADMITTED", 4),
            // Given back: its event was never stored (same sequence as the admission).
            row(sku, T0 + 1, 0, 0, 1, 100, "WITHDRAWN", 5),
            // Restored by a rebuild from its StockReserved: what was left after it is unknown.
            new Row(
                sku, T0 + 2, 101, 0, -2, 101, "O-r-" + run, "u-r-" + run, 1, "ADMITTED", null)));

    JsonNode body = http.get("/api/audit/skus/" + sku + "/decisions").getBody();

    assertThat(outcomes(body)).containsExactly("ADMITTED", "WITHDRAWN", "ADMITTED");
    assertThat(body.get("decisions").get(1).get("availableAfter").asLong()).isEqualTo(5);
    assertThat(body.get("decisions").get(2).get("availableAfter").isNull()).isTrue();
    assertThat(body.get("total").asLong()).isEqualTo(3);
  }

  @Test
  void aGapOfDroppedRefusalsShowsWhereAndHowManyInTheSkusAndTheUsersDecisions() {
    String sku = "gap-" + run;
    String user = "u-gap-" + run;
    GateDecisionRows.insert(
        jdbc,
        List.of(
            row(sku, T0, 0, 0, 1, 100, "PURCHASE_LIMIT_EXCEEDED", 0),
            // The refusals the stream had no room for, closed where they were dropped: one row per
            // SKU and user, its quantity the refusals dropped (the drain writes '' for the id).
            new Row(sku, T0 + 5, 0, 0, 1, 1124, "", user, 37, "REFUSALS_DROPPED", null),
            row(sku, T0 + 6, 0, 0, 1, 2148, "INSUFFICIENT_STOCK", 0)));

    JsonNode skus = ok("/api/audit/skus/" + sku + "/decisions");
    JsonNode users = ok("/api/audit/users/" + user + "/decisions");

    assertThat(outcomes(skus))
        .containsExactly("PURCHASE_LIMIT_EXCEEDED", "REFUSALS_DROPPED", "INSUFFICIENT_STOCK");
    JsonNode gap = skus.get("decisions").get(1);
    assertThat(gap.get("userId").asString()).isEqualTo(user);
    assertThat(gap.get("quantity").asInt()).isEqualTo(37);
    assertThat(gap.get("reservationId").isNull()).isTrue();
    assertThat(gap.get("availableAfter").isNull()).isTrue();
    assertThat(outcomes(users)).containsExactly("REFUSALS_DROPPED");
    assertThat(users.get("decisions").get(0).get("skuId").asString()).isEqualTo(sku);
    assertThat(users.get("decisions").get(0).get("reservationId").isNull()).isTrue();
  }

  @Test
  void pagesSplitTheOrderAndEachCarriesTheTotal() {
    String sku = "paged-" + run;
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      // Three decisions a millisecond: ties on every page boundary's side.
      rows.add(row(sku, T0 + i / 3, i % 3, 0, 1, i, "ADMITTED", 25 - i));
    }
    GateDecisionRows.insert(jdbc, rows);

    List<Long> seen = new ArrayList<>();
    for (int page = 0; page < 3; page++) {
      JsonNode body = ok("/api/audit/skus/" + sku + "/decisions?size=10&page=" + page);
      assertThat(body.get("total").asLong()).isEqualTo(25);
      assertThat(body.get("page").asInt()).isEqualTo(page);
      assertThat(body.get("size").asInt()).isEqualTo(10);
      assertThat(body.get("decisions")).hasSize(page < 2 ? 10 : 5);
      seen.addAll(sequences(body));
    }
    assertThat(seen).containsExactlyElementsOf(rangeOf(0, 25));
    JsonNode beyond = ok("/api/audit/skus/" + sku + "/decisions?size=10&page=3");
    assertThat(beyond.get("decisions")).isEmpty();
    assertThat(beyond.get("total").asLong()).isEqualTo(25);
    // The stream of 25 rows is read through its marks (every 4 rows).
    assertThat(
            jdbc.queryForObject(
                "select count(*) from gate_decision_mark where sku_id = ?", Long.class, sku))
        .isPositive();
  }

  @Test
  void fromIsIncludedToIsNotAndBothCountInTheTotal() {
    String sku = "window-" + run;
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      rows.add(row(sku, T0 + 1000L * i, 0, i % 2, 1, i, "ADMITTED", 20 - i));
    }
    GateDecisionRows.insert(jdbc, rows);
    String path = "/api/audit/skus/" + sku + "/decisions?size=4";

    JsonNode window =
        ok(
            path
                + "&from="
                + Instant.ofEpochMilli(T0 + 5000)
                + "&to="
                + Instant.ofEpochMilli(T0 + 12_000));
    assertThat(window.get("total").asLong()).isEqualTo(7);
    assertThat(sequences(window)).containsExactly(5L, 6L, 7L, 8L);
    JsonNode second =
        ok(
            path
                + "&page=1&from="
                + Instant.ofEpochMilli(T0 + 5000)
                + "&to="
                + Instant.ofEpochMilli(T0 + 12_000));
    assertThat(sequences(second)).containsExactly(9L, 10L, 11L);

    // A bound between milliseconds: the decision at T0 + 5000 lies before 5000.2 ms.
    JsonNode fraction = ok(path + "&from=" + Instant.ofEpochMilli(T0 + 5000).plusNanos(200_000));
    assertThat(fraction.get("total").asLong()).isEqualTo(14);
    assertThat(sequences(fraction).get(0)).isEqualTo(6L);
    JsonNode untilOnly = ok(path + "&to=" + Instant.ofEpochMilli(T0 + 2000));
    assertThat(sequences(untilOnly)).containsExactly(0L, 1L);
    assertThat(
            ok(path
                    + "&from="
                    + Instant.ofEpochMilli(T0 + 3000)
                    + "&to="
                    + Instant.ofEpochMilli(T0 + 3000))
                .get("total")
                .asLong())
        .isZero();
  }

  @Test
  void aroundSelloutAnswersThePageOfTheFirstDecisionThatLeftNothing() {
    String sku = "sellout-" + run;
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      long available = Math.max(0, 12 - i);
      rows.add(
          row(
              sku,
              T0 + i,
              0,
              0,
              1,
              i,
              available > 0 || i == 12 ? "ADMITTED" : "INSUFFICIENT_STOCK",
              available));
    }
    GateDecisionRows.insert(jdbc, rows);

    JsonNode around = ok("/api/audit/skus/" + sku + "/decisions?size=5&around=sellout");
    assertThat(around.get("sellout").asLong()).isEqualTo(12);
    assertThat(around.get("page").asInt()).isEqualTo(2);
    assertThat(sequences(around)).containsExactly(10L, 11L, 12L, 13L, 14L);
    assertThat(around.get("decisions").get(2).get("availableAfter").asLong()).isZero();
    assertThat(around.get("total").asLong()).isEqualTo(30);

    // Within a window the position counts from its start.
    JsonNode windowed =
        ok(
            "/api/audit/skus/"
                + sku
                + "/decisions?size=5&around=sellout&from="
                + Instant.ofEpochMilli(T0 + 10));
    assertThat(windowed.get("sellout").asLong()).isEqualTo(2);
    assertThat(windowed.get("page").asInt()).isZero();
    assertThat(sequences(windowed)).containsExactly(10L, 11L, 12L, 13L, 14L);

    JsonNode before =
        ok(
            "/api/audit/skus/"
                + sku
                + "/decisions?size=5&around=sellout&to="
                + Instant.ofEpochMilli(T0 + 12));
    assertThat(before.has("sellout")).isTrue();
    assertThat(before.get("sellout").isNull()).isTrue();
    assertThat(before.get("page").asInt()).isZero();
    assertThat(sequences(before)).containsExactly(0L, 1L, 2L, 3L, 4L);
  }

  @Test
  void aUsersDecisionsComeFromEverySkuInTimeOrder() {
    String user = "u-" + run;
    String a = "a-" + run;
    String b = "b-" + run;
    GateDecisionRows.insert(
        jdbc,
        List.of(
            userRow(b, T0 + 4, 0, user, 4, "PURCHASE_LIMIT_EXCEEDED"),
            userRow(a, T0 + 1, 5, user, 1, "ADMITTED"),
            // One order of two SKUs: one stream entry, two rows, SKU order between them.
            userRow(b, T0 + 2, 3, user, 3, "ADMITTED"),
            userRow(a, T0 + 2, 3, user, 2, "ADMITTED"),
            userRow(a, T0 + 3, 0, "someone-else-" + run, 99, "ADMITTED"),
            userRow(a, T0 + 6, 0, user, 5, "INSUFFICIENT_STOCK")));

    JsonNode body = ok("/api/audit/users/" + user + "/decisions");

    assertThat(body.get("userId").asString()).isEqualTo(user);
    assertThat(body.get("total").asLong()).isEqualTo(5);
    assertThat(sequences(body)).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(
            StreamSupport.stream(body.get("decisions").spliterator(), false)
                .map(decision -> decision.get("skuId").asString())
                .toList())
        .containsExactly(a, a, b, b, a);
    assertThat(outcomes(body))
        .containsExactly(
            "ADMITTED", "ADMITTED", "ADMITTED", "PURCHASE_LIMIT_EXCEEDED", "INSUFFICIENT_STOCK");
    JsonNode second = ok("/api/audit/users/" + user + "/decisions?size=2&page=1");
    assertThat(sequences(second)).containsExactly(3L, 4L);
    assertThat(second.get("total").asLong()).isEqualTo(5);
    JsonNode window =
        ok(
            "/api/audit/users/"
                + user
                + "/decisions?from="
                + Instant.ofEpochMilli(T0 + 2)
                + "&to="
                + Instant.ofEpochMilli(T0 + 6));
    assertThat(sequences(window)).containsExactly(2L, 3L, 4L);
    assertThat(window.get("total").asLong()).isEqualTo(3);
  }

  @Test
  void aUserTheGateNeverDecidedForHasNoDecisions() {
    JsonNode body = ok("/api/audit/users/nobody-" + run + "/decisions");

    assertThat(body.get("decisions")).isEmpty();
    assertThat(body.get("total").asLong()).isZero();
  }

  @Test
  void anUnknownSkuIsAProblem() {
    ResponseEntity<JsonNode> answer = http.get("/api/audit/skus/absent-" + run + "/decisions");

    assertThat(answer.getStatusCode().value()).isEqualTo(404);
    assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
    assertThat(answer.getBody().get("type").asString()).endsWith("/unknown-sku");
    assertThat(answer.getBody().get("skuId").asString()).isEqualTo("absent-" + run);
  }

  @Test
  void aRegisteredSkuWithoutDecisionsHasAnEmptyList() {
    String sku = "quiet-" + run;
    Events.append(eventStore, transaction, sku, 0, new SkuRegistered(sku, 10, null));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> http.get("/api/stock/" + sku).getStatusCode().value() == 200);

    JsonNode body = ok("/api/audit/skus/" + sku + "/decisions");

    assertThat(body.get("decisions")).isEmpty();
    assertThat(body.get("total").asLong()).isZero();
    // A SKU with decisions outside the window is known too.
    String decided = "decided-" + run;
    GateDecisionRows.insert(jdbc, List.of(row(decided, T0, 0, 0, 1, 1, "ADMITTED", 0)));
    JsonNode outside =
        ok("/api/audit/skus/" + decided + "/decisions?from=" + Instant.ofEpochMilli(T0 + 1));
    assertThat(outside.get("decisions")).isEmpty();
    assertThat(outside.get("total").asLong()).isZero();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/api/audit/skus/sku-%RUN%/decisions?size=0",
        "/api/audit/skus/sku-%RUN%/decisions?size=1001",
        "/api/audit/skus/sku-%RUN%/decisions?page=-1",
        "/api/audit/skus/sku-%RUN%/decisions?page=x",
        "/api/audit/skus/sku-%RUN%/decisions?from=yesterday",
        "/api/audit/skus/sku-%RUN%/decisions?to=2026-11-30T10:00:00",
        "/api/audit/skus/sku-%RUN%/decisions?from=2026-11-30T10:00:01Z&to=2026-11-30T10:00:00Z",
        "/api/audit/skus/sku-%RUN%/decisions?around=soldout",
        "/api/audit/skus/sku-%RUN%/decisions?around=sellout&page=0",
        "/api/audit/skus/sku-%RUN%%7B%7D/decisions",
        "/api/audit/users/u-%RUN%/decisions?size=0",
        "/api/audit/users/u-%RUN%/decisions?size=1001",
        "/api/audit/users/u-%RUN%/decisions?page=-1",
        "/api/audit/users/u-%RUN%/decisions?from=2026-11-31T00:00:00Z",
        "/api/audit/users/u-%RUN%/decisions?from=2026-11-30T10:00:01Z&to=2026-11-30T10:00:00Z",
        "/api/audit/users/u-%RUN%:*/decisions"
      })
  void badParametersAreInvalidRequests(String path) {
    ResponseEntity<JsonNode> answer = http.get(path.replace("%RUN%", run));

    assertThat(answer.getStatusCode().value()).isEqualTo(400);
    assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
    assertThat(answer.getBody().get("type").asString()).endsWith("/invalid-request");
    assertThat(answer.getBody().get("errors")).isNotEmpty();
  }

  @Test
  void aFromAfterToNamesFrom() {
    JsonNode problem =
        http.get(
                "/api/audit/skus/sku-"
                    + run
                    + "/decisions?from=2026-11-30T10:00:01Z&to=2026-11-30T10:00:00Z")
            .getBody();

    assertThat(problem.get("errors").get(0).get("field").asString()).isEqualTo("from");
    assertThat(problem.get("errors").get(0).get("message").asString())
        .isEqualTo("must not be after to");
  }

  private JsonNode ok(String path) {
    ResponseEntity<JsonNode> answer = http.get(path);
    assertThat(answer.getStatusCode().value()).as(path + " " + answer.getBody()).isEqualTo(200);
    return answer.getBody();
  }

  /** A row of the SKU's, its reservation and user named after its sequence. */
  private Row row(
      String sku,
      long at,
      long entrySeq,
      int partition,
      long epoch,
      long sequence,
      String outcome,
      long availableAfter) {
    return new Row(
        sku,
        at,
        entrySeq,
        partition,
        epoch,
        sequence,
        "O-" + sku + "-" + sequence,
        "u-" + sequence + "-" + run,
        2,
        outcome,
        availableAfter);
  }

  private static Row userRow(
      String sku, long at, long entrySeq, String user, long sequence, String outcome) {
    return new Row(sku, at, entrySeq, 0, 1, sequence, "O-" + sequence, user, 1, outcome, 5L);
  }

  private static List<Long> sequences(JsonNode body) {
    return StreamSupport.stream(body.get("decisions").spliterator(), false)
        .map(decision -> decision.get("sequence").asLong())
        .toList();
  }

  private static List<String> outcomes(JsonNode body) {
    return StreamSupport.stream(body.get("decisions").spliterator(), false)
        .map(decision -> decision.get("outcome").asString())
        .toList();
  }

  private static List<Integer> buckets(JsonNode body) {
    return StreamSupport.stream(body.get("decisions").spliterator(), false)
        .map(decision -> decision.get("bucket").asInt())
        .toList();
  }

  private static List<Long> rangeOf(int from, int to) {
    List<Long> range = new ArrayList<>();
    for (long i = from; i < to; i++) {
      range.add(i);
    }
    return range;
  }
}
