package io.stockade.query.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.draw.ReservationDrawn;
import io.stockade.api.draw.ReservationQueued;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.DrawDecided;
import io.stockade.api.sku.SaleScheduled;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.platform.testing.ApiClient;
import io.stockade.query.Events;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * A reservation that arrives in a pre-queue shows as QUEUED, and in its SKUs' queue lengths, until
 * the draw decides it: REFUSED with the refusal, or RESERVED by its {@code StockReserved},
 * whichever of its two events (committed together) comes first. A replay rebuilds the same rows.
 * Its own database: a replay resets the tokens of every instance.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.local-infra.database=stockade_test_draw",
      "stockade.reconciliation.interval=0s",
      // The replay writes what it holds at every change: an admission then replaces a QUEUED row
      // written before, and a refusal updates one.
      "stockade.replay.reservation-window=1"
    })
class QueuedReservationIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private JdbcTemplate jdbc;

  @Test
  void aQueuedReservationIsQueuedUntilTheDrawRefusesOrAdmitsIt() {
    ApiClient http = new ApiClient(port);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "draw-" + run;
    String other = "draw-other-" + run;
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    Instant opensAt = now.plus(10, ChronoUnit.MINUTES);
    append(sku, 0, new SkuRegistered(sku, 10, null), now);
    append(sku, 1, new SaleScheduled(sku, opensAt, null, 3600), now);
    append(other, 0, new SkuRegistered(other, 10, null), now);
    // Its registration and its schedule are two commits: the row may show the first alone.
    JsonNode stock = awaitJson(http, "/api/stock/" + sku, s -> s.get("sale").hasNonNull("opensAt"));
    assertThat(stock.get("sale").get("state").asString()).isEqualTo("PREQUEUE");
    assertThat(stock.get("sale").get("queued").asLong()).isZero();

    String refused = "Q-" + run + "-refused";
    String admitted = "Q-" + run + "-admitted";
    String admittedFirst = "Q-" + run + "-reserved-first";
    List<ReservationLine> lines =
        List.of(new ReservationLine(sku, 2), new ReservationLine(other, 1));
    for (String id : List.of(refused, admitted, admittedFirst)) {
      append(
          id, 0, new ReservationQueued(id, "u-" + id, lines, 600_000, opensAt, "c0ffee", now), now);
    }
    JsonNode queued = awaitJson(http, "/api/reservations/" + refused, r -> true);
    assertThat(queued.get("status").asString()).isEqualTo("QUEUED");
    assertThat(queued.get("userId").asString()).isEqualTo("u-" + refused);
    assertThat(Instant.parse(queued.get("createdAt").asString())).isEqualTo(now);
    assertThat(queued.get("expiresAt").isNull()).isTrue();
    assertThat(queued.get("lines")).hasSize(2);
    awaitJson(http, "/api/stock/" + sku, s -> s.get("sale").get("queued").asLong() == 3);
    JsonNode both = awaitJson(http, "/api/stock?skuIds=" + sku + "," + other, s -> true);
    assertThat(both.get(0).get("sale").get("queued").asLong()).isEqualTo(3);
    assertThat(both.get(1).get("sale").get("queued").asLong()).isEqualTo(3);

    // The draw: one refusal, two admissions, their StockReserved before or after.
    Instant drawnAt = opensAt;
    Instant expiresAt = drawnAt.plus(10, ChronoUnit.MINUTES);
    transaction.executeWithoutResult(
        status -> {
          append(
              refused,
              1,
              new ReservationDrawn(refused, opensAt, 2, "INSUFFICIENT_STOCK", sku),
              drawnAt);
          append(
              admitted, 1, new ReservationDrawn(admitted, opensAt, 0, "ADMITTED", null), drawnAt);
          append(
              admitted,
              0,
              new StockReserved(admitted, "u-" + admitted, lines, drawnAt, expiresAt, 1, 1),
              drawnAt);
          append(
              admittedFirst,
              0,
              new StockReserved(
                  admittedFirst, "u-" + admittedFirst, lines, drawnAt, expiresAt, 2, 1),
              drawnAt);
          append(
              admittedFirst,
              1,
              new ReservationDrawn(admittedFirst, opensAt, 1, "ADMITTED", null),
              drawnAt);
          append(sku, 2, new DrawDecided(sku, opensAt, "ab".repeat(32), 3, 2), drawnAt);
        });

    JsonNode refusal =
        awaitJson(
            http,
            "/api/reservations/" + refused,
            r -> "REFUSED".equals(r.get("status").asString()));
    assertThat(refusal.get("releaseReason").asString()).isEqualTo("INSUFFICIENT_STOCK");
    assertThat(refusal.get("expiresAt").isNull()).isTrue();
    for (String id : List.of(admitted, admittedFirst)) {
      JsonNode reserved =
          awaitJson(
              http, "/api/reservations/" + id, r -> "RESERVED".equals(r.get("status").asString()));
      assertThat(Instant.parse(reserved.get("expiresAt").asString())).isEqualTo(expiresAt);
      assertThat(Instant.parse(reserved.get("createdAt").asString())).isEqualTo(drawnAt);
      assertThat(reserved.get("releaseReason").isNull()).isTrue();
    }
    stock = awaitJson(http, "/api/stock/" + sku, s -> s.get("sale").get("queued").asLong() == 0);
    assertThat(stock.get("reserved").asLong()).isEqualTo(4);
    assertThat(awaitJson(http, "/api/stock/" + other, s -> true).get("sale").get("queued").asLong())
        .isZero();
    // The draw is stamped at the opening, ahead of now: the SKU's audit at that instant shows it.
    JsonNode audit = http.get("/api/audit/skus/" + sku + "?at=" + drawnAt.plusSeconds(1)).getBody();
    assertThat(audit.get("ledger"))
        .anyMatch(entry -> "DrawDecided".equals(entry.get("type").asString()));

    // The feed names a queued reservation's stream by the reservation's id, with its own type.
    JsonNode feed = http.get("/api/events?after=0&limit=1000").getBody();
    assertThat(feed.get("events"))
        .anyMatch(
            event ->
                "ReservationDrawn".equals(event.get("type").asString())
                    && "QueuedReservation".equals(event.get("aggregateType").asString())
                    && refused.equals(event.get("aggregateId").asString()))
        .anyMatch(event -> "DrawDecided".equals(event.get("type").asString()));

    // One still queued, to be rebuilt as such.
    String waiting = "Q-" + run + "-waiting";
    append(
        waiting,
        0,
        new ReservationQueued(waiting, "u-w", List.of(lines.get(0)), 600_000, opensAt, "c0", now),
        now);
    awaitJson(http, "/api/stock/" + sku, s -> s.get("sale").get("queued").asLong() == 1);

    Map<String, List<Map<String, Object>>> incremental = snapshot(run);
    ResponseEntity<JsonNode> started = http.send(HttpMethod.POST, "/api/replays", null);
    assertThat(started.getStatusCode().value()).isEqualTo(202);
    String replayId = started.getBody().get("replayId").asString();
    JsonNode done =
        await()
            .atMost(Duration.ofSeconds(120))
            .until(
                () -> http.get("/api/replays/" + replayId).getBody(),
                replay -> !"RUNNING".equals(replay.get("status").asString()));
    assertThat(done.get("status").asString()).isEqualTo("DONE");
    assertThat(snapshot(run)).isEqualTo(incremental);
    assertThat(awaitJson(http, "/api/reservations/" + waiting, r -> true).get("status").asString())
        .isEqualTo("QUEUED");
    assertThat(awaitJson(http, "/api/stock/" + sku, s -> true).get("sale").get("queued").asLong())
        .isEqualTo(1);
  }

  private Map<String, List<Map<String, Object>>> snapshot(String run) {
    return Map.of(
        "reservation_view",
        jdbc.queryForList(
            "select * from reservation_view where reservation_id like ? order by reservation_id",
            "Q-" + run + "-%"),
        "sku_queue",
        jdbc.queryForList(
            "select * from sku_queue where reservation_id like ? order by sku_id, reservation_id",
            "Q-" + run + "-%"),
        "stock_level",
        jdbc.queryForList(
            "select * from stock_level where sku_id like ? order by sku_id", "draw-%" + run));
  }

  private static JsonNode awaitJson(ApiClient http, String path, Predicate<JsonNode> until) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              ResponseEntity<JsonNode> answer = http.get(path);
              return answer.getStatusCode().value() == 200 ? answer.getBody() : null;
            },
            body -> body != null && until.test(body));
  }

  private void append(String aggregateId, long sequence, Object payload, Instant at) {
    Events.append(eventStore, transaction, aggregateId, sequence, payload, at);
  }
}
