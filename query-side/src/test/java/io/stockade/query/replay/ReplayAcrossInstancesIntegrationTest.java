package io.stockade.query.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
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
 * Two query-side instances on one database of their own: while a replay requested on one builds,
 * both serve the models in use (with {@code Stockade-Replay}); when it is done both serve the
 * rebuilt ones and follow new events into them; and it survives the loss of the instance that
 * requested it, in the middle of its switch. The build is held open by one more model whose fold
 * waits for the test ({@link HeldModel}), on whichever instance builds.
 */
class ReplayAcrossInstancesIntegrationTest {

  private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

  @AfterEach
  void stopInstances() {
    HeldModel.release();
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
    String lastReservation = ReadModelRows.workload(a, "RN-" + run + "-", sku, 3);
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

    HeldModel.hold();
    ResponseEntity<JsonNode> started = httpA.send(HttpMethod.POST, "/api/replays", null);
    assertThat(started.getStatusCode().value()).isEqualTo(202);
    String replayId = started.getBody().get("replayId").asString();
    assertThat(HeldModel.awaitHeld()).as("the replay's build is held").isTrue();

    for (ApiClient http : List.of(httpA, httpB)) {
      ResponseEntity<JsonNode> answer =
          await()
              .atMost(Duration.ofSeconds(10))
              .until(
                  () -> http.get("/api/stock/" + sku),
                  stock -> replayId.equals(stock.getHeaders().getFirst(ReplayHeader.NAME)));
      assertThat(answer.getStatusCode().value()).isEqualTo(200);
      assertThat(answer.getBody().get("reserved").asLong())
          .as("the models in use, as they were")
          .isGreaterThanOrEqualTo(100);
      assertThat(http.get("/api/replays/" + replayId).getBody().get("status").asString())
          .isEqualTo("RUNNING");
    }
    assertThat(httpB.send(HttpMethod.POST, "/api/replays", null).getStatusCode().value())
        .as("one replay at a time, across instances")
        .isEqualTo(409);

    HeldModel.release();
    JsonNode doneOnB = awaitEnded(httpB, replayId);
    JsonNode doneOnA = httpA.get("/api/replays/" + replayId).getBody();
    assertThat(doneOnB.get("status").asString()).isEqualTo("DONE");
    assertThat(doneOnB.get("percent").asInt()).isEqualTo(100);
    assertThat(doneOnB.get("processed").asLong()).isEqualTo(doneOnB.get("total").asLong());
    assertThat(doneOnA).isEqualTo(doneOnB);
    assertThat(snapshot(b, run)).isEqualTo(incremental);

    // Both instances' processors follow new events into the rebuilt models.
    String after = "RN-" + run + "-after";
    Instant now = Instant.now();
    Events.append(
        a.getBean(EventStore.class),
        a.getBean(TransactionTemplate.class),
        after,
        0,
        new StockReserved(
            after,
            "u-after",
            List.of(new ReservationLine(sku, 1)),
            now,
            now.plusSeconds(900),
            99,
            1),
        now);
    long reserved = incrementalReserved(incremental) + 1;
    for (ApiClient http : List.of(httpA, httpB)) {
      ResponseEntity<JsonNode> stock =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(
                  () -> http.get("/api/stock/" + sku),
                  answer -> answer.getBody().get("reserved").asLong() == reserved);
      assertThat(stock.getHeaders().getFirst(ReplayHeader.NAME)).isNull();
      // The reservation view has a processor of its own, which may be a moment behind the stock's.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> http.get("/api/reservations/" + after).getStatusCode().value() == 200);
    }
  }

  private static long incrementalReserved(Map<String, List<Map<String, Object>>> snapshot) {
    return ((Number) snapshot.get("stock_level").get(0).get("reserved")).longValue();
  }

  @Test
  void anotherInstanceTakesOverTheSwitchOfAnInstanceThatStopped() throws Exception {
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
    jdbc(a).update("update stock_level set total = total + 100 where sku_id = ?", sku);
    // A third instance that died holding a claim: nobody can switch until it times out.
    jdbc(a)
        .update(
            "update token_entry set owner = 'vanished-instance', timestamp = ?"
                + " where processor_name = 'stock-projection' and segment = 0",
            Instant.now().toString());

    ResponseEntity<JsonNode> started = httpA.send(HttpMethod.POST, "/api/replays", null);
    assertThat(started.getStatusCode().value()).isEqualTo(202);
    String replayId = started.getBody().get("replayId").asString();
    await().atMost(Duration.ofSeconds(60)).until(() -> status(b, replayId).equals("SWITCHING"));
    // b answers from the replay state it read last, at most a poll interval old: the replay may
    // have reached SWITCHING sooner than that after a's request.
    ResponseEntity<JsonNode> duringSwitch =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> httpB.get("/api/stock/" + sku),
                stock -> replayId.equals(stock.getHeaders().getFirst(ReplayHeader.NAME)));
    assertThat(status(b, replayId)).as("still held by the dead claim").isEqualTo("SWITCHING");
    assertThat(duringSwitch.getStatusCode().value()).isEqualTo(200);
    assertThat(duringSwitch.getBody().get("available").asLong()).isEqualTo(111);
    a.close();

    JsonNode done = awaitEnded(httpB, replayId);
    assertThat(done.get("status").asString()).isEqualTo("DONE");
    assertThat(
            jdbc(b)
                .queryForObject(
                    "select owner from read_model_replay where id = ?", String.class, replayId))
        .as("the replay was finished by the instance that took it over")
        .isEqualTo(b.getBean(QueryNode.class).name());
    assertThat(
            await()
                .atMost(Duration.ofSeconds(10))
                .until(
                    () -> httpB.get("/api/stock/" + sku),
                    stock -> stock.getHeaders().getFirst(ReplayHeader.NAME) == null)
                .getBody()
                .get("available")
                .asLong())
        .as("the rebuilt model")
        .isEqualTo(11);
  }

  private static String status(ConfigurableApplicationContext instance, String replayId) {
    return jdbc(instance)
        .queryForObject(
            "select status from read_model_replay where id = ?", String.class, replayId);
  }

  private ConfigurableApplicationContext start() {
    ConfigurableApplicationContext instance =
        new SpringApplicationBuilder(
                QuerySideApplication.class, HeldModel.Projection.class, HeldModel.Fold.class)
            .run(
                "--server.port=0",
                "--stockade.local-infra.database=stockade_test_replay_nodes",
                "--stockade.reconciliation.interval=0s",
                "--" + HeldModel.PROPERTIES.get(0),
                "--" + HeldModel.PROPERTIES.get(1));
    instances.add(instance);
    HeldModel.createTable(jdbc(instance));
    return instance;
  }

  private static ApiClient client(ConfigurableApplicationContext instance) {
    return new ApiClient(
        Integer.parseInt(instance.getEnvironment().getProperty("local.server.port")));
  }

  private static JdbcTemplate jdbc(ConfigurableApplicationContext instance) {
    return instance.getBean(JdbcTemplate.class);
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
}
