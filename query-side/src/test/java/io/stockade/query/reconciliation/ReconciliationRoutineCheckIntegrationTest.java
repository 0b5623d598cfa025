package io.stockade.query.reconciliation;

import static io.stockade.query.reconciliation.ReconciliationIntegrationTest.mismatch;
import static io.stockade.query.reconciliation.ReconciliationIntegrationTest.numbers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Routine checks against full ones, with the gate open in one partition of a Redis of the test's
 * own: a routine check reads the counters and only the intents that can have changed, still sees
 * what a routine check must see (counters that drift, an intent that changes while RESERVED, a
 * RESERVED row whose intent is gone), and leaves a final intent changed without an event to the
 * full check, which then keeps it in view. A long in-flight bound: nothing turns into DRIFT here.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.reconciliation.in-flight-bound=10m",
      "stockade.reconciliation.interval=0s",
      "stockade.reconciliation.max-age=0s",
      "stockade.reconciliation.full-max-age=0s"
    })
@DirtiesContext
class ReconciliationRoutineCheckIntegrationTest {

  private static final EmbeddedRedis REDIS = GateFixture.ownRedis("routine-check-redis");

  @DynamicPropertySource
  static void ownRedis(DynamicPropertyRegistry properties) {
    GateFixture.useRedis(properties, REDIS);
  }

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private StringRedisTemplate redis;

  private ApiClient http;
  private GateFixture gate;
  private String sku;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    gate = new GateFixture(eventStore, transaction, redis);
    gate.openMarker(gate.tag(), 7, 1);
    sku = GateFixture.unique("rt");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
  }

  @AfterEach
  void cleanUp() {
    gate.clean();
  }

  @Test
  void aRoutineCheckReadsTheIntentsThatCanHaveChangedAndAFullOneReadsThemAll() {
    List<String> confirmed = List.of(reservation(), reservation(), reservation());
    for (String reservation : confirmed) {
      confirm(reservation, 1);
    }
    gate.counters(sku, 7, 0, 3);
    JsonNode full = awaitAgreement(true);
    assertThat(full.get("gate").get("scope").asString()).isEqualTo("FULL");
    assertThat(full.get("gate").get("intents").asInt()).isEqualTo(3);
    assertThat(full.get("gate").get("marker").asString()).isEqualTo("OPEN");

    // The events a check folds after reading the gate name intents for the next check to read
    // (their gate updates may have come after the read); once that is done and nothing changed, a
    // routine check compares the counters and reads no intent.
    report(false);
    JsonNode routine = report(false);
    assertThat(routine.get("gate").get("scope").asString()).isEqualTo("CHANGED");
    assertThat(routine.get("gate").get("intents").asInt()).isZero();
    assertThat(routine.get("gate").get("lastFullCheck").asString())
        .isEqualTo(full.get("generatedAt").asString());
    assertThat(line(routine).get("status").asString()).isEqualTo("CONSISTENT");

    // A new reservation's events name it: the routine check reads its intent, RESERVED.
    String fresh = reservation();
    gate.intent(fresh, "RESERVED", sku, 2);
    gate.increment(sku, "available", -2);
    gate.increment(sku, "reserved", 2);
    gate.append(fresh, 0, gate.reserved(fresh, sku, 2));
    JsonNode afterReserve = awaitAgreement(false);
    assertThat(afterReserve.get("gate").get("scope").asString()).isEqualTo("CHANGED");
    assertThat(afterReserve.get("gate").get("intents").asInt()).isEqualTo(1);
    assertThat(numbers(line(afterReserve).get("gate"))).containsExactly(10L, 5L, 2L, 3L);

    // A final intent changed without an event is a fault only a full check reads...
    String faulted = confirmed.get(1);
    gate.state(gate.tag(), faulted, "RELEASED");
    assertThat(mismatch(report(false), faulted)).isNull();
    JsonNode found = mismatch(report(true), faulted);
    assertThat(found).isNotNull();
    assertThat(found.get("intent").asString()).isEqualTo("RELEASED");
    assertThat(found.get("readModel").asString()).isEqualTo("CONFIRMED");
    // ... and once found, the routine checks read it again until it agrees.
    assertThat(mismatch(report(false), faulted)).isNotNull();
    gate.state(gate.tag(), faulted, "CONFIRMED");
    assertThat(mismatch(report(false), faulted)).isNull();
  }

  @Test
  void aRoutineCheckSeesCountersThatDriftAndAReservedRowWhoseIntentIsGone() {
    String held = reservation();
    gate.intent(held, "RESERVED", sku, 2);
    gate.counters(sku, 8, 2, 0);
    gate.append(held, 0, gate.reserved(held, sku, 2));
    awaitAgreement(true);
    assertThat(report(false).get("gate").get("scope").asString()).isEqualTo("CHANGED");

    // Counters that change without an event: every routine check reads every SKU's counters.
    gate.increment(sku, "available", 3);
    JsonNode drifting = report(false);
    assertThat(drifting.get("gate").get("scope").asString()).isEqualTo("CHANGED");
    assertThat(line(drifting).get("status").asString()).isEqualTo("IN_FLIGHT");
    assertThat(numbers(line(drifting).get("difference").get("unexplained")))
        .containsExactly(3L, 3L, 0L, 0L);
    gate.increment(sku, "available", -3);

    // The intent of a RESERVED reservation lost: the routine check reads the RESERVED rows'
    // intents.
    redis.delete(GateFixture.intentKey(gate.tag(), held));
    JsonNode lost = mismatch(report(false), held);
    assertThat(lost).isNotNull();
    assertThat(lost.hasNonNull("intent")).isFalse();
    assertThat(lost.get("readModel").asString()).isEqualTo("RESERVED");

    // The held reservation's intent is read by every routine check: changed, it is seen.
    gate.intent(held, "CONFIRMED", sku, 2);
    JsonNode changed = mismatch(report(false), held);
    assertThat(changed).isNotNull();
    assertThat(changed.get("intent").asString()).isEqualTo("CONFIRMED");
  }

  @Test
  void aGateOpenInAnotherEpochIsReadWhole() {
    gate.counters(sku, 10, 0, 0);
    awaitAgreement(true);
    assertThat(report(false).get("gate").get("scope").asString()).isEqualTo("CHANGED");

    // Rebuilt: the partitions are the gate's of another epoch, and only a full read can tell.
    gate.openMarker(gate.tag(), 8, 1);
    JsonNode rebuilt = report(false);
    assertThat(rebuilt.get("gate").get("scope").asString()).isEqualTo("FULL");
    assertThat(report(false).get("gate").get("scope").asString()).isEqualTo("CHANGED");

    // Lost: no marker at all; every check reads whole until the gate is open again.
    redis.delete("stockade:{" + gate.tag() + "}:gate");
    assertThat(report(false).get("gate").get("scope").asString()).isEqualTo("FULL");
    assertThat(report(false).get("gate").get("marker").asString()).isEqualTo("ABSENT");
    assertThat(report(false).get("gate").get("scope").asString()).isEqualTo("FULL");
  }

  private String reservation() {
    return GateFixture.unique("rt-R");
  }

  /** A reservation of {@code quantity} units reserved and confirmed: its events and its intent. */
  private void confirm(String reservation, int quantity) {
    List<ReservationLine> lines = List.of(new ReservationLine(sku, quantity));
    gate.append(reservation, 0, gate.reserved(reservation, lines));
    gate.append(reservation, 1, new StockConfirmed(reservation, "u-1", lines, Instant.now()));
    gate.intent(reservation, "CONFIRMED", sku, quantity);
  }

  /** The SKU's report, once gate, events and read model agree and no reservation of it differs. */
  private JsonNode awaitAgreement(boolean full) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> report(full),
            report ->
                line(report).get("status").asString().equals("CONSISTENT")
                    && report.get("reservationMismatches").isEmpty());
  }

  private JsonNode report(boolean full) {
    JsonNode report =
        http.get("/api/reconciliation/skus/" + sku + (full ? "?full=true" : "")).getBody();
    assertThat(report.has("skus")).as("a report: %s", report).isTrue();
    return report;
  }

  private static JsonNode line(JsonNode report) {
    return report.get("skus").get(0);
  }
}
