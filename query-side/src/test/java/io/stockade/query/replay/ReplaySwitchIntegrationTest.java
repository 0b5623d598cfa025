package io.stockade.query.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReserved;
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
 * The build and the switch of a replay, on a database of their own: a build that takes longer than
 * the owner's lease and the switch timeout together still ends DONE with whole models, built by its
 * owner; a build that fails, and a switch held up past its timeout by a transaction that uses the
 * models' tables, end FAILED with the models they started from, no copy left, and the processors
 * following the events again.
 */
class ReplaySwitchIntegrationTest {

  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Duration SWITCH_TIMEOUT = Duration.ofSeconds(4);

  private final List<ConfigurableApplicationContext> instances = new ArrayList<>();
  private final List<Connection> locks = new ArrayList<>();

  @AfterEach
  void stopInstances() throws SQLException {
    HeldModel.release();
    releaseLocks();
    instances.forEach(ConfigurableApplicationContext::close);
  }

  @Test
  void aBuildLongerThanTheLeaseAndTheSwitchTimeoutEndsDoneWithWholeModels() throws Exception {
    ConfigurableApplicationContext a = start();
    ConfigurableApplicationContext b = start();
    awaitNoReplayInProgress(a);
    ApiClient httpA = client(a);
    ApiClient httpB = client(b);
    String run = caughtUpWorkload(a);
    String sku = "reset-" + run;
    Map<String, List<Map<String, Object>>> incremental = snapshot(a, run);
    damage(a, sku);

    HeldModel.hold();
    String replayId = startReplay(httpA);
    assertThat(HeldModel.awaitHeld()).as("the replay's build is held").isTrue();
    Set<String> seen = ConcurrentHashMap.newKeySet();
    // Held past the owner's lease and the switch timeout.
    long heldFrom = System.nanoTime();
    Duration hold = LEASE.plus(SWITCH_TIMEOUT).plusSeconds(4);
    await()
        .atMost(hold.plusSeconds(60))
        .until(
            () ->
                observe(seen, replayId, httpA, httpB)
                    && System.nanoTime() - heldFrom > hold.toNanos());
    HeldModel.release();

    JsonNode ended = awaitEnded(httpB, replayId, seen, httpA, httpB);
    assertThat(seen).as("statuses reported on either instance").doesNotContain("FAILED");
    assertThat(ended.get("status").asString()).isEqualTo("DONE");
    assertThat(httpA.get("/api/replays/" + replayId).getBody()).isEqualTo(ended);
    assertThat(owner(a, replayId))
        .as("built and switched by the instance it was requested on: never taken over")
        .isEqualTo(a.getBean(QueryNode.class).name());
    assertThat(snapshot(b, run)).as("the rebuilt models").isEqualTo(incremental);
  }

  @Test
  void aBuildThatFailsLeavesTheModelsItStartedFrom() throws Exception {
    ConfigurableApplicationContext a = start();
    awaitNoReplayInProgress(a);
    ApiClient http = client(a);
    String run = caughtUpWorkload(a);
    String sku = "reset-" + run;
    damage(a, sku);
    Map<String, List<Map<String, Object>>> before = snapshot(a, run);

    HeldModel.fail();
    double failedBefore = failedReplays(a);
    String replayId = startReplay(http);
    assertFailedWithTheModelsAsFound(a, replayId, "the held model's fold failed", run, before);
    assertThat(failedReplays(a))
        .as("stockade.replays{status=FAILED} of the instance that ended it")
        .isEqualTo(failedBefore + 1);
  }

  private static double failedReplays(ConfigurableApplicationContext instance) {
    return instance
        .getBean(MeterRegistry.class)
        .get("stockade.replays")
        .tag("status", "FAILED")
        .counter()
        .count();
  }

  @Test
  void aSwitchHeldUpPastItsTimeoutLeavesTheModelsItStartedFrom() throws Exception {
    ConfigurableApplicationContext a = start();
    awaitNoReplayInProgress(a);
    ApiClient http = client(a);
    String run = caughtUpWorkload(a);
    String sku = "reset-" + run;
    damage(a, sku);
    Map<String, List<Map<String, Object>>> before = snapshot(a, run);

    // A transaction that has read the stock table and stays open: the rename cannot take the
    // table until it ends.
    useStockTable(a, sku);
    String replayId = startReplay(http);
    assertFailedWithTheModelsAsFound(a, replayId, "could not be switched", run, before);
  }

  @Test
  void copiesOfTablesAMigrationChangedMeanwhileDoNotReplaceThem() throws Exception {
    ConfigurableApplicationContext a = start();
    awaitNoReplayInProgress(a);
    ApiClient http = client(a);
    String run = caughtUpWorkload(a);
    String sku = "reset-" + run;

    HeldModel.hold();
    String replayId = startReplay(http);
    assertThat(HeldModel.awaitHeld()).as("the replay's build is held").isTrue();
    jdbc(a).execute("ALTER TABLE sku_queue ADD COLUMN added_meanwhile INTEGER NULL");
    try {
      HeldModel.release();
      JsonNode ended = awaitEnded(http, replayId);
      assertThat(ended.get("status").asString()).isEqualTo("FAILED");
      assertThat(ended.get("failure").asString())
          .contains("[sku_queue] were changed while the replay built their copies");
      assertThat(
              jdbc(a)
                  .queryForObject(
                      "select count(*) from information_schema.columns"
                          + " where table_schema = database() and table_name = 'sku_queue'"
                          + " and column_name = 'added_meanwhile'",
                      Integer.class))
          .as("the migrated table is still the model's")
          .isOne();
      assertThat(copies(a)).as("no copy left").isZero();
    } finally {
      jdbc(a).execute("ALTER TABLE sku_queue DROP COLUMN IF EXISTS added_meanwhile");
    }
  }

  /** A workload of a SKU of its own, applied by the projections; its run's id. */
  private static String caughtUpWorkload(ConfigurableApplicationContext instance) {
    String run = UUID.randomUUID().toString().substring(0, 8);
    ReadModelRows.workload(instance, "RR-" + run + "-", "reset-" + run, null);
    await().atMost(Duration.ofSeconds(120)).until(() -> ReadModelRows.caughtUp(instance));
    return run;
  }

  /** A row of the stock model the events do not give: a replay's rebuild does not have it. */
  private static void damage(ConfigurableApplicationContext instance, String sku) {
    jdbc(instance).update("update stock_level set reserved = reserved + 100 where sku_id = ?", sku);
  }

  /**
   * The replay ended FAILED for {@code failure}, the models as they were {@code before} it, no copy
   * left, and the processors following the events again.
   */
  private static void assertFailedWithTheModelsAsFound(
      ConfigurableApplicationContext instance,
      String replayId,
      String failure,
      String run,
      Map<String, List<Map<String, Object>>> before) {
    ApiClient http = client(instance);
    JsonNode ended = awaitEnded(http, replayId);
    assertThat(ended.get("status").asString()).isEqualTo("FAILED");
    assertThat(ended.get("failure").asString()).contains(failure);
    assertThat(snapshot(instance, run))
        .as("the models, as the replay found them")
        .isEqualTo(before);
    assertThat(copies(instance)).as("no copy left").isZero();
    assertFollowing(instance, http, run, "reset-" + run);
  }

  /** A new reservation reaches the read models: the processors run again. */
  private static void assertFollowing(
      ConfigurableApplicationContext instance, ApiClient http, String run, String sku) {
    String id = "RR-" + run + "-after";
    Instant now = Instant.now();
    Events.append(
        instance.getBean(EventStore.class),
        instance.getBean(TransactionTemplate.class),
        id,
        0,
        new StockReserved(
            id, "u-after", List.of(new ReservationLine(sku, 1)), now, now.plusSeconds(900), 99, 1),
        now);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> http.get("/api/reservations/" + id).getStatusCode().value() == 200);
  }

  private ConfigurableApplicationContext start() {
    ConfigurableApplicationContext instance =
        new SpringApplicationBuilder(
                QuerySideApplication.class, HeldModel.Projection.class, HeldModel.Fold.class)
            .run(
                "--server.port=0",
                "--stockade.local-infra.database=stockade_test_replay_reset",
                "--stockade.reconciliation.interval=0s",
                "--stockade.replay.poll-interval=200ms",
                "--stockade.replay.lease=" + LEASE.toMillis() + "ms",
                "--stockade.replay.reset-timeout=" + SWITCH_TIMEOUT.toMillis() + "ms",
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

  /**
   * Reads the SKU's stock row in a transaction of its own, left open until released: it holds the
   * table's metadata lock, which a rename must have.
   */
  private void useStockTable(ConfigurableApplicationContext instance, String sku)
      throws SQLException {
    Connection lock = instance.getBean(DataSource.class).getConnection();
    locks.add(lock);
    lock.setAutoCommit(false);
    try (PreparedStatement select =
        lock.prepareStatement("select sku_id from stock_level where sku_id = ?")) {
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

  private static String owner(ConfigurableApplicationContext instance, String replayId) {
    return jdbc(instance)
        .queryForObject("select owner from read_model_replay where id = ?", String.class, replayId);
  }

  /** The copies of the models' tables that exist. */
  private static int copies(ConfigurableApplicationContext instance) {
    return jdbc(instance)
        .queryForObject(
            "select count(*) from information_schema.tables where table_schema = database()"
                + " and table_name in ('stock_level_replay', 'stock_ledger_replay',"
                + " 'reservation_view_replay', 'sku_queue_replay', 'held_model_replay')",
            Integer.class);
  }

  /** Adds the replay's status on each instance to {@code seen}; always true. */
  private static boolean observe(Set<String> seen, String replayId, ApiClient... instances) {
    for (ApiClient http : instances) {
      seen.add(http.get("/api/replays/" + replayId).getBody().get("status").asString());
    }
    return true;
  }

  private static JsonNode awaitEnded(ApiClient http, String replayId) {
    return awaitEnded(http, replayId, ConcurrentHashMap.newKeySet());
  }

  /** Waits for the replay to end, adding its status on each of {@code observed} to {@code seen}. */
  private static JsonNode awaitEnded(
      ApiClient http, String replayId, Set<String> seen, ApiClient... observed) {
    return await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> {
              observe(seen, replayId, observed);
              return http.get("/api/replays/" + replayId).getBody();
            },
            replay -> !"RUNNING".equals(replay.get("status").asString()));
  }

  private static Map<String, List<Map<String, Object>>> snapshot(
      ConfigurableApplicationContext instance, String run) {
    return ReadModelRows.snapshot(instance, "reset-" + run, "RR-" + run + "-");
  }
}
