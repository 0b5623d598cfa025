package io.stockade.query.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.platform.testing.ApiClient;
import io.stockade.query.Events;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * While a replay rebuilds the read models, every endpoint answers from the models in use, with
 * {@code Stockade-Replay: <replayId>}, and new events keep reaching them; when the replay is DONE
 * the rebuilt models replace them at once. Reads run the whole time, and none answers anything but
 * 200. The live model is damaged on purpose before the replay: it is served as it is until the
 * switch, and the rebuilt one after. The replay's build is held open by one more model whose fold
 * waits for the test ({@link HeldModel}). Its own database: other test contexts run instances of
 * the projections too.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.local-infra.database=stockade_test_replay_held",
      "stockade.replay.processors=stock-projection,reservation-projection," + HeldModel.PROCESSOR,
      "axon.eventhandling.processors." + HeldModel.PROCESSOR + ".mode=pooled",
      "stockade.reconciliation.interval=0s"
    })
@Import({HeldModel.Projection.class, HeldModel.Fold.class})
class ReplayWithoutDowntimeIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private JdbcTemplate jdbc;

  @BeforeEach
  void heldModel() {
    HeldModel.createTable(jdbc);
  }

  @AfterEach
  void letGo() {
    HeldModel.release();
  }

  @Test
  void readModelsServeAndFollowWhileAReplayRebuildsThemAndSwitchAtOnceWhenItIsDone()
      throws Exception {
    ApiClient http = new ApiClient(port);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "held-" + run;
    String before = "R-" + run + "-before";
    String during = "R-" + run + "-during";
    Instant now = Instant.now();
    Events.append(eventStore, transaction, sku, 0, new SkuRegistered(sku, 7, null), now);
    reserve(before, sku, 1, now);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> http.get("/api/reservations/" + before).getStatusCode().value() == 200);
    // A damaged row: the rebuilt model will not have it.
    jdbc.update("update stock_level set total = total + 100 where sku_id = ?", sku);
    assertThat(http.get("/api/stock/" + sku).getBody().get("available").asLong()).isEqualTo(106);

    Reads reads = new Reads(http, List.of("/api/stock/" + sku, "/api/reservations/" + before));
    HeldModel.hold();
    ResponseEntity<JsonNode> started = http.send(HttpMethod.POST, "/api/replays", null);
    assertThat(started.getStatusCode().value()).isEqualTo(202);
    String replayId = started.getBody().get("replayId").asString();
    assertThat(HeldModel.awaitHeld()).as("the replay's build is held").isTrue();

    for (String path :
        List.of(
            "/api/stock/" + sku,
            "/api/stock?skuIds=" + sku,
            "/api/sales",
            "/api/reservations/" + before,
            "/api/audit/skus/" + sku,
            "/api/audit/skus/" + sku + "/decisions")) {
      ResponseEntity<JsonNode> answer = http.get(path);
      assertThat(answer.getStatusCode().value()).as(path).isEqualTo(200);
      assertThat(answer.getHeaders().getFirst(ReplayHeader.NAME)).as(path).isEqualTo(replayId);
    }
    assertThat(http.get("/api/reservations/R-absent").getHeaders().getFirst(ReplayHeader.NAME))
        .as("a 404 served during the replay")
        .isEqualTo(replayId);
    assertThat(http.get("/api/stock/" + sku).getBody().get("available").asLong())
        .as("the models in use, as they were")
        .isEqualTo(106);
    // New events reach the models in use while the replay builds.
    reserve(during, sku, 2, Instant.now());
    JsonNode following =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> http.get("/api/stock/" + sku).getBody(),
                stock -> stock.get("reserved").asLong() == 3);
    assertThat(following.get("available").asLong()).isEqualTo(104);
    // The reservation view has a processor of its own, which may be a moment behind the stock's.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> http.get("/api/reservations/" + during).getStatusCode().value() == 200);
    assertThat(http.get("/api/reconciliation/skus/" + sku).getBody().get("readModel"))
        .as("the models in use are compared during a replay")
        .isEqualTo(
            tools.jackson.databind.json.JsonMapper.builder()
                .build()
                .readTree("{\"status\":\"COMPARED\"}"));
    assertThat(http.get("/api/replays/" + replayId).getBody().get("status").asString())
        .isEqualTo("RUNNING");
    assertThat(http.send(HttpMethod.POST, "/api/replays", null).getStatusCode().value())
        .as("one replay at a time")
        .isEqualTo(409);
    long readsBeforeRelease = reads.count();

    HeldModel.release();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                "DONE"
                    .equals(
                        http.get("/api/replays/" + replayId).getBody().get("status").asString()));
    // The rebuilt models: the damage gone, both reservations there (the second one's events came
    // after the bulk fold).
    ResponseEntity<JsonNode> stock =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> http.get("/api/stock/" + sku),
                answer -> answer.getHeaders().getFirst(ReplayHeader.NAME) == null);
    assertThat(stock.getBody().get("total").asLong()).isEqualTo(7);
    assertThat(stock.getBody().get("reserved").asLong()).isEqualTo(3);
    assertThat(stock.getBody().get("available").asLong()).isEqualTo(4);
    assertThat(http.get("/api/reservations/" + during).getBody().get("status").asString())
        .isEqualTo("RESERVED");
    // The replaced tables are dropped once the replay is DONE.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(
                        jdbc.queryForList(
                            "select table_name from information_schema.tables"
                                + " where table_schema = database() and (table_name like"
                                + " '%\\_replay' or table_name like '%\\_replaced')",
                            String.class))
                    .as("no copy nor replaced table left")
                    .containsExactly("read_model_replay"));

    reads.close();
    assertThat(reads.failures()).as("answers other than 200 during the replay").isEmpty();
    assertThat(reads.count()).as("reads while the replay ran").isGreaterThan(readsBeforeRelease);
    assertThat(readsBeforeRelease).isPositive();
  }

  private void reserve(String id, String sku, int quantity, Instant at) {
    Events.append(
        eventStore,
        transaction,
        id,
        0,
        new StockReserved(
            id,
            "u-" + id,
            List.of(new ReservationLine(sku, quantity)),
            at,
            at.plusSeconds(900),
            0,
            1),
        at);
  }
}
