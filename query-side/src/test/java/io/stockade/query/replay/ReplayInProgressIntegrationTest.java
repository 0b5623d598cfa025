package io.stockade.query.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.sku.SkuRegistered;
import io.stockade.platform.testing.ApiClient;
import io.stockade.query.Events;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * While a replay runs, the endpoints of the read models answer 503 {@code replay-in-progress} with
 * Retry-After, once the request has been found valid (a malformed one is its 400), and the audit of
 * a reservation (from the event store) still answers, as does the reconciliation, which compares
 * the gate with the events and leaves the read model out; once the replay is done they serve the
 * rebuilt model. The replay is held open by one more projection whose handler waits for the test
 * ({@link HeldProjection}). Its own database: a replay resets the tokens of every instance of the
 * projections, and other test contexts run instances too.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.local-infra.database=stockade_test_replay_held",
      "stockade.replay.processors=stock-projection,reservation-projection,held-projection",
      "axon.eventhandling.processors.held-projection.mode=pooled",
      "stockade.reconciliation.interval=0s"
    })
@Import(ReplayInProgressIntegrationTest.HeldProjection.class)
class ReplayInProgressIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private HeldProjection held;

  @AfterEach
  void letGo() {
    held.release();
  }

  @Test
  void readModelsAnswer503WhileAReplayRunsAndServeTheRebuiltModelAfter() throws Exception {
    ApiClient http = new ApiClient(port);
    String sku = "held-" + UUID.randomUUID().toString().substring(0, 8);
    Events.append(eventStore, transaction, sku, 0, new SkuRegistered(sku, 7, null), Instant.now());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> http.get("/api/stock/" + sku).getStatusCode().value() == 200);

    held.hold();
    ResponseEntity<JsonNode> started = http.send(HttpMethod.POST, "/api/replays", null);
    assertThat(started.getStatusCode().value()).isEqualTo(202);
    String replayId = started.getBody().get("replayId").asString();
    assertThat(held.awaitHeld()).as("the held projection is replaying").isTrue();

    for (String path :
        new String[] {
          "/api/stock/" + sku,
          "/api/stock?skuIds=" + sku,
          "/api/reservations/R-1",
          "/api/audit/skus/" + sku,
          "/api/audit/skus/" + sku + "/decisions"
        }) {
      ResponseEntity<JsonNode> answer = http.get(path);
      assertThat(answer.getStatusCode().value()).as(path).isEqualTo(503);
      assertThat(answer.getHeaders().getFirst("Retry-After")).as(path).isEqualTo("1");
      assertThat(answer.getBody().get("type").asString()).as(path).endsWith("/replay-in-progress");
    }
    // A malformed request is its 400 whatever the read models' state: a retry would not mend it.
    for (String path :
        new String[] {
          "/api/stock/%7B" + sku + "%7D",
          "/api/stock/" + sku + "*/stream",
          "/api/stock?skuIds=",
          "/api/reservations/R-1:*",
          "/api/audit/skus/" + sku + "?at=yesterday",
          "/api/audit/skus/" + sku + "?page=-1",
          "/api/audit/skus/" + sku + "/decisions?from=yesterday",
          "/api/audit/skus/" + sku + "/decisions?around=first"
        }) {
      ResponseEntity<JsonNode> answer = http.get(path);
      assertThat(answer.getStatusCode().value()).as(path).isEqualTo(400);
      assertThat(answer.getBody().get("type").asString()).as(path).endsWith("/invalid-request");
    }
    assertThat(http.get("/api/stock/").getStatusCode().value())
        .as("a path that names no endpoint")
        .isEqualTo(404);
    assertThat(http.get("/api/audit/reservations/R-absent").getStatusCode().value())
        .as("the audit of a reservation reads the event store")
        .isEqualTo(404);
    ResponseEntity<JsonNode> reconciliation = http.get("/api/reconciliation/skus/" + sku);
    assertThat(reconciliation.getStatusCode().value())
        .as("the gate is still compared with the events")
        .isEqualTo(200);
    assertThat(reconciliation.getBody().get("readModel").get("status").asString())
        .isEqualTo("REPLAYING");
    JsonNode line = reconciliation.getBody().get("skus").get(0);
    assertThat(line.get("readModel").isNull()).as("the half-built read model").isTrue();
    assertThat(line.get("difference").get("readModel").isNull()).isTrue();
    assertThat(line.get("status").asString()).isEqualTo("UNKNOWN");
    assertThat(reconciliation.getBody().get("summary").get("reservationMismatches").isNull())
        .as("no reservation compared with a half-built view")
        .isTrue();
    assertThat(http.get("/api/replays/" + replayId).getBody().get("status").asString())
        .isEqualTo("RUNNING");
    assertThat(http.send(HttpMethod.POST, "/api/replays", null).getStatusCode().value())
        .as("one replay at a time")
        .isEqualTo(409);

    held.release();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                "DONE"
                    .equals(
                        http.get("/api/replays/" + replayId).getBody().get("status").asString()));
    ResponseEntity<JsonNode> stock = http.get("/api/stock/" + sku);
    assertThat(stock.getStatusCode().value()).isEqualTo(200);
    assertThat(stock.getBody().get("available").asLong()).isEqualTo(7);
  }

  /** A projection that, while held, waits in its handler: its replay cannot finish. */
  @ProcessingGroup(HeldProjection.NAME)
  static class HeldProjection {

    static final String NAME = "held-projection";

    private volatile CountDownLatch gate = new CountDownLatch(0);
    private volatile CountDownLatch reached = new CountDownLatch(1);

    void hold() {
      reached = new CountDownLatch(1);
      gate = new CountDownLatch(1);
    }

    void release() {
      gate.countDown();
    }

    boolean awaitHeld() throws InterruptedException {
      return reached.await(60, TimeUnit.SECONDS);
    }

    @EventHandler
    void on(Object event) throws InterruptedException {
      CountDownLatch current = gate;
      if (current.getCount() > 0) {
        reached.countDown();
        current.await(120, TimeUnit.SECONDS);
      }
    }
  }
}
