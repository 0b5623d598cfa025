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
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
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
 * The reset of a replay, on a database of its own: one that takes longer than the owner's lease and
 * the reset timeout together still ends DONE with whole models; one that fails halfway, after the
 * first projection's tables were emptied, changes nothing and the replay ends FAILED with the
 * models it started from. The reset is slowed by a lock the test holds on a row that the stock
 * projection's reset handler deletes.
 */
class ReplayResetIntegrationTest {

  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Duration RESET_TIMEOUT = Duration.ofSeconds(2);

  private final List<ConfigurableApplicationContext> instances = new ArrayList<>();
  private final List<Connection> locks = new ArrayList<>();

  @AfterEach
  void stopInstances() throws SQLException {
    for (Connection lock : locks) {
      lock.rollback();
      lock.close();
    }
    instances.forEach(ConfigurableApplicationContext::close);
  }

  @Test
  void aResetLongerThanTheLeaseAndTheResetTimeoutEndsDoneWithWholeModels() throws Exception {
    ConfigurableApplicationContext a = start();
    ConfigurableApplicationContext b = start();
    awaitNoReplayInProgress(a);
    ApiClient httpA = client(a);
    ApiClient httpB = client(b);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "reset-" + run;
    workload(a, run, sku);
    await().atMost(Duration.ofSeconds(120)).until(() -> ReadModelRows.caughtUp(a));
    Map<String, List<Map<String, Object>>> incremental = snapshot(a, run);
    jdbc(a).update("update stock_level set reserved = reserved + 100 where sku_id = ?", sku);

    lockStockRow(a, sku);
    String replayId = startReplay(httpA);
    Set<String> seen = ConcurrentHashMap.newKeySet();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> observe(seen, replayId, httpA, httpB) && resetWaitsOnTheLock(a));
    // Held past the owner's lease and the reset deadline of any instance that took it over.
    long heldFrom = System.nanoTime();
    Duration hold = LEASE.plus(RESET_TIMEOUT).plusSeconds(4);
    await()
        .atMost(hold.plusSeconds(60))
        .until(
            () ->
                observe(seen, replayId, httpA, httpB)
                    && System.nanoTime() - heldFrom > hold.toNanos());
    assertThat(resetWaitsOnTheLock(a)).as("the reset still waits on the test's lock").isTrue();
    releaseLocks();

    JsonNode ended =
        await()
            .atMost(Duration.ofSeconds(120))
            .until(
                () -> {
                  observe(seen, replayId, httpA, httpB);
                  return httpB.get("/api/replays/" + replayId).getBody();
                },
                replay -> !"RUNNING".equals(replay.get("status").asString()));
    assertThat(seen).as("statuses reported on either instance").doesNotContain("FAILED");
    assertThat(ended.get("status").asString()).isEqualTo("DONE");
    assertThat(httpA.get("/api/replays/" + replayId).getBody()).isEqualTo(ended);
    assertThat(snapshot(b, run)).as("the rebuilt models").isEqualTo(incremental);
  }

  @Test
  void aResetThatFailsHalfwayLeavesTheModelsAndTokensItStartedFrom() throws Exception {
    ConfigurableApplicationContext a = start();
    awaitNoReplayInProgress(a);
    ApiClient http = client(a);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "reset-" + run;
    workload(a, run, sku);
    await().atMost(Duration.ofSeconds(120)).until(() -> ReadModelRows.caughtUp(a));
    jdbc(a).update("update stock_level set reserved = reserved + 100 where sku_id = ?", sku);
    Map<String, List<Map<String, Object>>> before = snapshot(a, run);
    List<Map<String, Object>> tokensBefore = tokens(a);

    lockStockRow(a, sku);
    String replayId = startReplay(http);
    await().atMost(Duration.ofSeconds(60)).until(() -> resetWaitsOnTheLock(a));
    // The stock projection's tables are being emptied; now another instance claims a segment of
    // the reservation projection, whose reset comes next and fails.
    jdbc(a)
        .update(
            "update token_entry set owner = 'vanished-instance', timestamp = ?"
                + " where processor_name = 'reservation-projection' and segment = 0",
            Instant.now().toString());
    releaseLocks();

    JsonNode ended = awaitEnded(http, replayId);
    assertThat(ended.get("status").asString()).isEqualTo("FAILED");
    assertThat(ended.get("failure").asString()).contains("vanished-instance");
    assertThat(ended.get("startedAt").isNull()).isTrue();
    assertThat(snapshot(a, run)).as("the models, as the replay found them").isEqualTo(before);
    assertThat(tokens(a)).as("the tokens, as the replay found them").isEqualTo(tokensBefore);
    jdbc(a).update("update token_entry set owner = null where owner = 'vanished-instance'");
  }

  private ConfigurableApplicationContext start() {
    ConfigurableApplicationContext instance =
        new SpringApplicationBuilder(QuerySideApplication.class)
            .run(
                "--server.port=0",
                "--stockade.local-infra.database=stockade_test_replay_reset",
                "--stockade.reconciliation.interval=0s",
                "--stockade.replay.poll-interval=200ms",
                "--stockade.replay.lease=" + LEASE.toMillis() + "ms",
                "--stockade.replay.reset-timeout=" + RESET_TIMEOUT.toMillis() + "ms",
                // Claims outlive the hold: an instance that took a replay over could not claim
                // the segments of a reset that committed meanwhile.
                "--axon.eventhandling.tokenstore.claim-timeout=30s");
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

  /** One left in progress by an earlier run is taken over and finished first. */
  private static void awaitNoReplayInProgress(ConfigurableApplicationContext instance) {
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () ->
                jdbc(instance)
                        .queryForObject(
                            "select count(*) from read_model_replay where in_progress = 1",
                            Integer.class)
                    == 0);
  }

  private static String startReplay(ApiClient http) {
    ResponseEntity<JsonNode> started = http.send(HttpMethod.POST, "/api/replays", null);
    assertThat(started.getStatusCode().value()).isEqualTo(202);
    return started.getBody().get("replayId").asString();
  }

  /** Holds a row lock on the SKU's stock row, in a transaction of its own, until released. */
  private void lockStockRow(ConfigurableApplicationContext instance, String sku)
      throws SQLException {
    Connection lock = instance.getBean(DataSource.class).getConnection();
    locks.add(lock);
    lock.setAutoCommit(false);
    try (PreparedStatement select =
        lock.prepareStatement("select sku_id from stock_level where sku_id = ? for update")) {
      select.setString(1, sku);
      select.executeQuery().close();
    }
  }

  private void releaseLocks() throws SQLException {
    for (Connection lock : locks) {
      lock.rollback();
      lock.close();
    }
    locks.clear();
  }

  /** The stock projection's reset handler waits on the test's lock. */
  private static boolean resetWaitsOnTheLock(ConfigurableApplicationContext instance) {
    Integer waiting =
        jdbc(instance)
            .queryForObject(
                "select count(*) from information_schema.innodb_trx"
                    + " where trx_state = 'LOCK WAIT' and trx_query like 'delete from stock_level%'",
                Integer.class);
    return waiting != null && waiting > 0;
  }

  /** Adds the replay's status on each instance to {@code seen}; always true. */
  private static boolean observe(Set<String> seen, String replayId, ApiClient... instances) {
    for (ApiClient http : instances) {
      seen.add(http.get("/api/replays/" + replayId).getBody().get("status").asString());
    }
    return true;
  }

  private static JsonNode awaitEnded(ApiClient http, String replayId) {
    return await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> http.get("/api/replays/" + replayId).getBody(),
            replay -> !"RUNNING".equals(replay.get("status").asString()));
  }

  /** A SKU, reservations of it, some confirmed and some released. */
  private static void workload(ConfigurableApplicationContext instance, String run, String sku) {
    EventStore eventStore = instance.getBean(EventStore.class);
    TransactionTemplate transaction = instance.getBean(TransactionTemplate.class);
    Instant t0 = Instant.now().minusSeconds(600);
    Events.append(eventStore, transaction, sku, 0, new SkuRegistered(sku, 100, null), t0);
    for (int r = 0; r < 12; r++) {
      String id = "RR-" + run + "-" + r;
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
  }

  private static Map<String, List<Map<String, Object>>> snapshot(
      ConfigurableApplicationContext instance, String run) {
    return ReadModelRows.snapshot(instance, "reset-" + run, "RR-" + run + "-");
  }

  /** The projections' tokens: where each segment is, as stored (who claims it aside). */
  private static List<Map<String, Object>> tokens(ConfigurableApplicationContext instance) {
    return jdbc(instance)
        .queryForList(
            "select processor_name, segment, token_type, hex(token) as token from token_entry"
                + " where processor_name in ('stock-projection', 'reservation-projection')"
                + " order by processor_name, segment");
  }
}
