package io.stockade.query.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.platform.testing.ApiClient;
import io.stockade.query.Events;
import io.stockade.query.QuerySideApplication;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Two query-side instances on one database of their own: a replay requested on one stops, serves
 * 503 from and restarts both, and survives the loss of the instance that requested it. The replay
 * is held open by one more projection whose handler waits for the test ({@link HeldProjection}), on
 * whichever instance processes it.
 */
class ReplayAcrossInstancesIntegrationTest {

  private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

  @AfterEach
  void stopInstances() {
    HeldProjection.release();
    instances.forEach(ConfigurableApplicationContext::close);
  }

  @Test
  void aReplayRequestedOnOneInstanceHoldsAndRebuildsTheReadModelsOfBoth() throws Exception {
    ConfigurableApplicationContext a = start();
    ConfigurableApplicationContext b = start();
    ApiClient httpA = client(a);
    ApiClient httpB = client(b);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "nodes-" + run;
    String lastReservation = workload(a, run, sku);
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () ->
                ReadModelRows.caughtUp(a)
                    && httpB.get("/api/reservations/" + lastReservation).getStatusCode().value()
                        == 200);
    Map<String, List<Map<String, Object>>> incremental = snapshot(a, run);
    jdbc(a).update("update stock_level set reserved = reserved + 100 where sku_id = ?", sku);
    assertThat(snapshot(a, run)).isNotEqualTo(incremental);

    HeldProjection.hold();
    ResponseEntity<JsonNode> started = httpA.send(HttpMethod.POST, "/api/replays", null);
    assertThat(started.getStatusCode().value()).isEqualTo(202);
    String replayId = started.getBody().get("replayId").asString();
    assertThat(HeldProjection.awaitHeld()).as("the held projection is replaying").isTrue();

    for (ApiClient http : List.of(httpA, httpB)) {
      ResponseEntity<JsonNode> answer = http.get("/api/stock/" + sku);
      assertThat(answer.getStatusCode().value()).isEqualTo(503);
      assertThat(answer.getHeaders().getFirst("Retry-After")).isEqualTo("1");
      assertThat(answer.getBody().get("type").asString()).endsWith("/replay-in-progress");
      assertThat(http.get("/api/replays/" + replayId).getBody().get("status").asString())
          .isEqualTo("RUNNING");
    }
    assertThat(httpB.send(HttpMethod.POST, "/api/replays", null).getStatusCode().value())
        .as("one replay at a time, across instances")
        .isEqualTo(409);

    HeldProjection.release();
    JsonNode doneOnB = awaitEnded(httpB, replayId);
    JsonNode doneOnA = httpA.get("/api/replays/" + replayId).getBody();
    assertThat(doneOnB.get("status").asString()).isEqualTo("DONE");
    assertThat(doneOnB.get("percent").asInt()).isEqualTo(100);
    assertThat(doneOnB.get("processed").asLong()).isEqualTo(doneOnB.get("total").asLong());
    assertThat(doneOnA).isEqualTo(doneOnB);
    assertThat(snapshot(b, run)).isEqualTo(incremental);
    for (ApiClient http : List.of(httpA, httpB)) {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> http.get("/api/stock/" + sku).getStatusCode().value() == 200);
    }
  }

  @Test
  void anotherInstanceTakesOverTheReplayOfAnInstanceThatStopped() throws Exception {
    ConfigurableApplicationContext a = start();
    ConfigurableApplicationContext b = start();
    ApiClient httpA = client(a);
    ApiClient httpB = client(b);
    String sku = "nodes-" + UUID.randomUUID().toString().substring(0, 8);
    Events.append(
        a.getBean(EventStore.class),
        a.getBean(TransactionTemplate.class),
        sku,
        0,
        new SkuRegistered(sku, 11, null),
        Instant.now());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                ReadModelRows.caughtUp(a)
                    && httpB.get("/api/stock/" + sku).getStatusCode().value() == 200);
    // A third instance that died holding a claim: nobody can reset the tokens until it times out.
    jdbc(a)
        .update(
            "update token_entry set owner = 'vanished-instance', timestamp = ?"
                + " where processor_name = 'stock-projection' and segment = 0",
            Instant.now().toString());

    ResponseEntity<JsonNode> started = httpA.send(HttpMethod.POST, "/api/replays", null);
    assertThat(started.getStatusCode().value()).isEqualTo(202);
    String replayId = started.getBody().get("replayId").asString();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> httpB.get("/api/stock/" + sku).getStatusCode().value() == 503);
    a.close();

    JsonNode done = awaitEnded(httpB, replayId);
    assertThat(done.get("status").asString()).isEqualTo("DONE");
    assertThat(
            jdbc(b)
                .queryForObject(
                    "select owner from read_model_replay where id = ?", String.class, replayId))
        .as("the replay was finished by the instance that took it over")
        .isEqualTo(b.getBean(QueryNode.class).name());
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> httpB.get("/api/stock/" + sku).getStatusCode().value() == 200);
    assertThat(httpB.get("/api/stock/" + sku).getBody().get("available").asLong()).isEqualTo(11);
  }

  private ConfigurableApplicationContext start() {
    ConfigurableApplicationContext instance =
        new SpringApplicationBuilder(QuerySideApplication.class, HeldProjection.class)
            .run(
                "--server.port=0",
                "--stockade.local-infra.database=stockade_test_replay_nodes",
                "--stockade.reconciliation.interval=0s",
                "--stockade.replay.processors=stock-projection,reservation-projection,"
                    + HeldProjection.NAME,
                "--axon.eventhandling.processors." + HeldProjection.NAME + ".mode=pooled");
    instances.add(instance);
    return instance;
  }

  private static ApiClient client(ConfigurableApplicationContext instance) {
    return new ApiClient(
        Integer.parseInt(instance.getEnvironment().getProperty("local.server.port")));
  }

  private static JdbcTemplate jdbc(ConfigurableApplicationContext instance) {
    return instance.getBean(JdbcTemplate.class);
  }

  /** Reservations of one SKU, some confirmed and some released; the last one's id. */
  private static String workload(ConfigurableApplicationContext instance, String run, String sku) {
    EventStore eventStore = instance.getBean(EventStore.class);
    TransactionTemplate transaction = instance.getBean(TransactionTemplate.class);
    Instant t0 = Instant.now().minusSeconds(600);
    Events.append(eventStore, transaction, sku, 0, new SkuRegistered(sku, 100, 3), t0);
    String id = null;
    for (int r = 0; r < 12; r++) {
      id = "RN-" + run + "-" + r;
      Instant at = t0.plusSeconds(r + 1);
      List<ReservationLine> lines = List.of(new ReservationLine(sku, 1 + r % 3));
      Events.append(
          eventStore,
          transaction,
          id,
          0,
          new StockReserved(id, "u-" + r, lines, at, at.plusSeconds(900), r, 1),
          at);
      if (r % 3 == 0) {
        Events.append(
            eventStore, transaction, id, 1, new StockConfirmed(id, "u-" + r, lines, at), at);
      } else if (r % 3 == 1) {
        Events.append(
            eventStore,
            transaction,
            id,
            1,
            new StockReleased(id, "u-" + r, lines, "CANCELLED", at),
            at);
      }
    }
    return id;
  }

  private static JsonNode awaitEnded(ApiClient http, String replayId) {
    return await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> http.get("/api/replays/" + replayId).getBody(),
            replay -> !"RUNNING".equals(replay.get("status").asString()));
  }

  private static Map<String, List<Map<String, Object>>> snapshot(
      ConfigurableApplicationContext instance, String run) {
    return ReadModelRows.snapshot(instance, "nodes-" + run, "RN-" + run + "-");
  }

  /** A projection that, while held, waits in its handler, on whichever instance handles it. */
  @ProcessingGroup(HeldProjection.NAME)
  static class HeldProjection {

    static final String NAME = "held-projection";

    private static volatile CountDownLatch gate = new CountDownLatch(0);
    private static volatile CountDownLatch reached = new CountDownLatch(1);

    static void hold() {
      reached = new CountDownLatch(1);
      gate = new CountDownLatch(1);
    }

    static void release() {
      gate.countDown();
    }

    static boolean awaitHeld() throws InterruptedException {
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
