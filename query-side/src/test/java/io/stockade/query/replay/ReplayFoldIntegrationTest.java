package io.stockade.query.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockReplenished;
import io.stockade.platform.testing.ApiClient;
import io.stockade.query.Events;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.AfterEach;
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
 * A replay folds the event table in bulk and hands the processors its end, a gap-aware token: an
 * event whose transaction took its global index before the fold but commits after it, below the
 * fold's end, still reaches the rebuilt models once, through the processors, and so do the events
 * stored after the replay. Its own database: a replay resets the tokens of every instance.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.local-infra.database=stockade_test_replay_fold",
      "stockade.reconciliation.interval=0s"
    })
class ReplayFoldIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private JdbcTemplate jdbc;

  private Events.Held late;

  @AfterEach
  void letGo() {
    if (late != null) {
      late.release();
    }
  }

  @Test
  void anEventThatCommitsLateBelowTheFoldsEndReachesTheRebuiltModelsOnce() throws Exception {
    ApiClient http = new ApiClient(port);
    String sku = "fold-" + UUID.randomUUID().toString().substring(0, 8);
    Events.append(eventStore, transaction, sku, 0, new SkuRegistered(sku, 10, null));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> http.get("/api/stock/" + sku).getStatusCode().value() == 200);
    // A replenishment whose transaction has taken its global index and commits after the fold.
    late =
        Events.appendHeld(
            eventStore, transaction, sku, 1, new StockReplenished(sku, "late-" + sku, 5));
    String reservation = "fold-r-" + UUID.randomUUID().toString().substring(0, 8);
    Instant now = Instant.now();
    Events.append(
        eventStore,
        transaction,
        reservation,
        0,
        new StockReserved(
            reservation,
            "u-1",
            List.of(new ReservationLine(sku, 2)),
            now,
            now.plusSeconds(600),
            1,
            1));

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
    assertThat(level(sku))
        .as("folded without the replenishment, not committed yet")
        .containsEntry("total", 10L)
        .containsEntry("reserved", 2L);
    assertThat(http.get("/api/reservations/" + reservation).getStatusCode().value()).isEqualTo(200);

    late.commit();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(level(sku)).containsEntry("total", 15L));
    Events.append(eventStore, transaction, sku, 2, new StockReplenished(sku, "after-" + sku, 1));
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(level(sku)).containsEntry("total", 16L));
    assertThat(
            jdbc.queryForList(
                "select reference from stock_ledger where sku_id = ?", String.class, sku))
        .as("each change once, in the ledger")
        .containsExactlyInAnyOrder(sku, reservation, "late-" + sku, "after-" + sku);
    assertThat(level(sku)).containsEntry("reserved", 2L).containsEntry("sold", 0L);
  }

  private Map<String, Object> level(String sku) {
    return jdbc.queryForMap("select total, reserved, sold from stock_level where sku_id = ?", sku);
  }
}
