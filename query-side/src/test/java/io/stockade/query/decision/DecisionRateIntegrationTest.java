package io.stockade.query.decision;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.ApiClient;
import io.stockade.query.decision.DecisionRates.Rates;
import io.stockade.query.decision.DecisionRates.Second;
import io.stockade.query.decision.GateDecisionRows.Row;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The gate's admissions and refusals per second ({@code GET /api/decisions/rate}) from the decision
 * log in the real database: the counts per second of seeded rows in a window no other test writes
 * (an instant of its own in 2001, read with a clock set there), and the endpoint over HTTP: every
 * second of the window, the seconds just decided, and bad input answered with a problem.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class DecisionRateIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private JdbcTemplate jdbc;

  private ApiClient http;
  private String run;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    run = UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void countsAdmissionsAndRefusalsPerSecondOfTheLastMinutes() {
    // A whole second in 2001 of this run's own: the suite's other rows are of other times.
    long now =
        Instant.parse("2001-01-01T00:00:00Z").toEpochMilli()
            + ThreadLocalRandom.current().nextLong(1_000_000) * 1000;
    long second = now - 60_000;
    List<Row> rows = new ArrayList<>();
    // In one second: 3 admitted, 1 withdrawn (neither), 2 short of stock, 1 over a limit, 1 not
    // open yet, and a gap standing for 5 refusals dropped.
    rows.add(row("a", second + 1, "ADMITTED", 1));
    rows.add(row("b", second + 1, "ADMITTED", 2));
    rows.add(row("c", second + 999, "ADMITTED", 1));
    rows.add(row("d", second + 500, "WITHDRAWN", 1));
    rows.add(row("e", second + 2, "INSUFFICIENT_STOCK", 1));
    rows.add(row("f", second + 3, "INSUFFICIENT_STOCK", 4));
    rows.add(row("g", second + 4, "PURCHASE_LIMIT_EXCEEDED", 1));
    rows.add(row("h", second + 5, "SALE_NOT_OPEN", 1));
    rows.add(row("i", second + 6, "REFUSALS_DROPPED", 5));
    // The next second: one refusal; before the window, and in the current second: not counted.
    rows.add(row("j", second + 1000, "SALE_PAUSED", 1));
    rows.add(row("k", now - 5 * 60_000 - 1, "ADMITTED", 1));
    rows.add(row("l", now + 10, "ADMITTED", 1));
    GateDecisionRows.insert(jdbc, rows);

    Rates rates =
        new DecisionRates(jdbc, Clock.fixed(Instant.ofEpochMilli(now + 10), ZoneOffset.UTC))
            .last(5);

    assertThat(rates.from()).isEqualTo(Instant.ofEpochMilli(now - 5 * 60_000));
    assertThat(rates.to()).isEqualTo(Instant.ofEpochMilli(now));
    assertThat(rates.seconds()).hasSize(300);
    assertThat(rates.seconds().get(0).at()).isEqualTo(rates.from());
    assertThat(rates.seconds())
        .filteredOn(s -> s.admitted() > 0 || s.refused() > 0)
        .containsExactly(
            new Second(Instant.ofEpochMilli(second), 3, 9),
            new Second(Instant.ofEpochMilli(second + 1000), 0, 1));
  }

  @Test
  void answersEverySecondOfTheWindowWithTheDecisionsJustMoved() {
    long second = System.currentTimeMillis() / 1000 * 1000 - 30_000;
    GateDecisionRows.insert(
        jdbc,
        List.of(
            row("x", second + 10, "ADMITTED", 1),
            row("y", second + 20, "ADMITTED", 1),
            row("z", second + 30, "INSUFFICIENT_STOCK", 1)));

    ResponseEntity<JsonNode> answer = http.get("/api/decisions/rate?minutes=2");

    assertThat(answer.getStatusCode().value()).isEqualTo(200);
    JsonNode body = answer.getBody();
    Instant from = Instant.parse(body.path("from").asString());
    Instant to = Instant.parse(body.path("to").asString());
    assertThat(to.toEpochMilli() - from.toEpochMilli()).isEqualTo(120_000);
    assertThat(body.path("seconds").size()).isEqualTo(120);
    assertThat(Instant.parse(body.path("seconds").get(0).path("at").asString())).isEqualTo(from);
    JsonNode ours = null;
    for (JsonNode each : body.path("seconds")) {
      if (Instant.parse(each.path("at").asString()).toEpochMilli() == second) {
        ours = each;
      }
    }
    // Other tests may have decided in that second too: at least this test's rows.
    assertThat(ours).isNotNull();
    assertThat(ours.path("admitted").asLong()).isGreaterThanOrEqualTo(2);
    assertThat(ours.path("refused").asLong()).isGreaterThanOrEqualTo(1);
    assertThat(http.get("/api/decisions/rate").getBody().path("seconds").size()).isEqualTo(300);
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "61", "-1", "abc", "1.5", "1e400"})
  void aWindowOutOfRangeIsAProblem(String minutes) {
    ResponseEntity<JsonNode> answer = http.get("/api/decisions/rate?minutes=" + minutes);

    assertThat(answer.getStatusCode().value()).isEqualTo(400);
    assertThat(answer.getHeaders().getContentType()).hasToString("application/problem+json");
    assertThat(answer.getBody().path("type").asString()).endsWith("/invalid-request");
    assertThat(answer.getBody().path("status").asInt()).isEqualTo(400);
  }

  private Row row(String id, long at, String outcome, int quantity) {
    return new Row(
        "rate-" + run,
        at,
        Math.floorMod(at, 1000) * 100 + id.charAt(0),
        0,
        1,
        at,
        outcome.equals("REFUSALS_DROPPED") ? "" : "R-" + run + "-" + id,
        "u-" + id,
        quantity,
        outcome,
        outcome.equals("REFUSALS_DROPPED") ? null : 1L);
  }
}
