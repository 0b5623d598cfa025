package io.stockade.query.reconciliation;

import static io.stockade.query.reconciliation.ReconciliationIntegrationTest.mismatch;
import static io.stockade.query.reconciliation.ReconciliationIntegrationTest.numbers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.serialization.Serializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * A difference that outlives the in-flight bound (1 s here) is DRIFT: in the report, the metrics
 * and the checks' log. The schedule is off so that the first sighting of a difference is the test's
 * own check; every request asks for a check of its own ({@code max-age} 0). A gate that cannot be
 * read for a while makes the SKU UNKNOWN, never CONSISTENT, and does not make the reconciliation
 * forget since when a difference is seen.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.reconciliation.in-flight-bound=1s",
      "stockade.reconciliation.interval=0s",
      "stockade.reconciliation.max-age=0s"
    })
@ExtendWith(OutputCaptureExtension.class)
@DirtiesContext
class ReconciliationDriftIntegrationTest {

  private static final EmbeddedRedis REDIS = GateFixture.ownRedis("reconciliation-drift-redis");

  @DynamicPropertySource
  static void ownRedis(DynamicPropertyRegistry properties) {
    GateFixture.useRedis(properties, REDIS);
  }

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private StringRedisTemplate redis;
  @Autowired private ReconciliationChecks checks;
  @Autowired private MeterRegistry meters;
  @Autowired private EventStoreFold fold;

  @Autowired
  @Qualifier("eventSerializer")
  private Serializer serializer;

  @Autowired private JdbcTemplate jdbc;

  private ApiClient http;
  private GateFixture gate;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    gate = new GateFixture(eventStore, transaction, redis);
  }

  @AfterEach
  void cleanUp() {
    gate.clean();
  }

  @Test
  void aDriftInjectedIntoRedisIsInFlightThenDriftThenConsistentOnceFixed(CapturedOutput output) {
    String sku = GateFixture.unique("rc-drift");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.counters(sku, 10, 0, 0);
    awaitStatus(sku, "CONSISTENT");
    double driftsBefore = meters.get("stockade.reconciliation.drifts").counter().count();

    gate.increment(sku, "available", 3);

    JsonNode first = line(sku);
    assertThat(first.get("status").asString()).isEqualTo("IN_FLIGHT");
    assertThat(numbers(first.get("gate"))).containsExactly(13L, 13L, 0L, 0L);
    assertThat(numbers(first.get("difference").get("unexplained"))).containsExactly(3L, 3L, 0L, 0L);

    JsonNode drift = awaitStatus(sku, "DRIFT").get("skus").get(0);
    assertThat(drift.get("since").asString()).isEqualTo(first.get("since").asString());
    assertThat(numbers(drift.get("difference").get("gate"))).containsExactly(3L, 3L, 0L, 0L);
    assertThat(meters.get("stockade.reconciliation.drifts").counter().count())
        .isGreaterThan(driftsBefore);
    assertThat(meters.get("stockade.reconciliation.skus").tag("status", "DRIFT").gauge().value())
        .isGreaterThanOrEqualTo(1);

    checks.next(false).join();
    assertThat(output.getOut() + output.getErr()).containsPattern("WARN.*SKU " + sku + " in DRIFT");

    gate.increment(sku, "available", -3);
    assertThat(line(sku).get("status").asString()).isEqualTo("CONSISTENT");
  }

  @Test
  void aReservationMismatchThatLastsIsDrift() {
    String sku = GateFixture.unique("rc-rdrift");
    String reservation = GateFixture.unique("rc-D");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.append(reservation, 0, gate.reserved(reservation, sku, 2));
    gate.counters(sku, 8, 0, 2);
    gate.intent(reservation, "CONFIRMED", sku, 2);

    JsonNode report =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> http.get("/api/reconciliation/skus/" + sku).getBody(),
                answer -> {
                  JsonNode mismatch = answer.has("skus") ? mismatch(answer, reservation) : null;
                  // The SKU's own difference may have been first seen a moment after the
                  // mismatch: both must have lasted past the bound.
                  return mismatch != null
                      && "RESERVED".equals(mismatch.get("readModel").asString(null))
                      && mismatch.get("status").asString().equals("DRIFT")
                      && "DRIFT".equals(answer.get("skus").get(0).get("status").asString());
                });

    assertThat(mismatch(report, reservation).get("intent").asString()).isEqualTo("CONFIRMED");
    assertThat(report.get("skus").get(0).get("status").asString()).isEqualTo("DRIFT");
  }

  @Test
  void aPartialConfirmationTheGateNeverAppliesIsDrift() {
    String sku = GateFixture.unique("rc-pdrift");
    String reservation = GateFixture.unique("rc-PD");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.append(reservation, 0, gate.reserved(reservation, sku, 3));
    gate.counters(sku, 7, 3, 0);
    gate.intent(reservation, "RESERVED", sku, 3);
    awaitStatus(sku, "CONSISTENT");

    // Confirmed in part in the record; the gate's intent stays RESERVED, its counters unmoved.
    Instant at = Instant.now();
    transaction.executeWithoutResult(
        status -> {
          gate.append(
              reservation,
              1,
              new StockConfirmed(reservation, "u-1", List.of(new ReservationLine(sku, 1)), at));
          gate.append(
              reservation,
              2,
              new StockReleased(
                  reservation,
                  "u-1",
                  List.of(new ReservationLine(sku, 2)),
                  StockReleased.NOT_CONFIRMED,
                  at));
        });

    JsonNode report =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> http.get("/api/reconciliation/skus/" + sku).getBody(),
                answer -> {
                  JsonNode mismatch = answer.has("skus") ? mismatch(answer, reservation) : null;
                  return mismatch != null
                      && "CONFIRMED".equals(mismatch.get("readModel").asString(null))
                      && mismatch.get("status").asString().equals("DRIFT")
                      && "DRIFT".equals(answer.get("skus").get(0).get("status").asString());
                });

    JsonNode line = report.get("skus").get(0);
    assertThat(numbers(line.get("events"))).containsExactly(10L, 9L, 0L, 1L);
    assertThat(numbers(line.get("difference").get("gate"))).containsExactly(0L, -2L, 3L, -1L);
    assertThat(numbers(line.get("difference").get("unexplained")))
        .as("past the bound, the update still to come explains nothing")
        .containsExactly(0L, -2L, 3L, -1L);
    assertThat(mismatch(report, reservation).get("intent").asString()).isEqualTo("RESERVED");
  }

  @Test
  void aGateUnreadableForAWhileIsUnknownAndTheDifferenceKeepsItsFirstSighting() {
    String sku = GateFixture.unique("rc-flaky");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.counters(sku, 10, 0, 0);
    LettuceConnectionFactory flakyRedis =
        new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", REDIS.port()));
    flakyRedis.afterPropertiesSet();
    try {
      Reconciliation reconciliation =
          new Reconciliation(
              new GateReader(new StringRedisTemplate(flakyRedis)),
              fold,
              serializer,
              jdbc,
              new SimpleMeterRegistry(),
              Clock.systemUTC(),
              Duration.ofSeconds(1));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> status(reconciliation.check(), sku).equals("CONSISTENT"));

      gate.increment(sku, "available", 3);
      ReconciliationReport.Sku first = line(reconciliation.check(), sku);
      assertThat(first.status()).isEqualTo("IN_FLIGHT");

      // Redis cannot be read: the client is stopped, as if the connection were lost.
      flakyRedis.stop();
      ReconciliationReport blind = reconciliation.check();
      assertThat(blind.gate().status()).isEqualTo("UNAVAILABLE");
      assertThat(line(blind, sku).status()).isEqualTo("UNKNOWN");
      assertThat(blind.summary().unknown()).isPositive();
      assertThat(blind.summary().reservationMismatches())
          .as("the intents could not be compared")
          .isNull();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Duration.between(first.since(), Instant.now()).toMillis() > 1500);
      assertThat(line(reconciliation.check(), sku).status())
          .as("still unreadable: unknown, however long the difference lasts")
          .isEqualTo("UNKNOWN");

      flakyRedis.start();
      ReconciliationReport.Sku again = line(reconciliation.check(), sku);
      assertThat(again.status()).as("the same difference, seen since before").isEqualTo("DRIFT");
      assertThat(again.since()).isEqualTo(first.since());
    } finally {
      flakyRedis.destroy();
    }
  }

  private static ReconciliationReport.Sku line(ReconciliationReport report, String sku) {
    return report.skus().stream()
        .filter(line -> line.skuId().equals(sku))
        .findFirst()
        .orElseThrow();
  }

  private static String status(ReconciliationReport report, String sku) {
    return report.skus().stream()
        .filter(line -> line.skuId().equals(sku))
        .map(ReconciliationReport.Sku::status)
        .findFirst()
        .orElse("");
  }

  private JsonNode line(String sku) {
    return http.get("/api/reconciliation/skus/" + sku).getBody().get("skus").get(0);
  }

  private JsonNode awaitStatus(String sku, String status) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> http.get("/api/reconciliation/skus/" + sku).getBody(),
            report ->
                report.has("skus")
                    && report.get("skus").get(0).get("status").asString().equals(status));
  }
}
