package io.stockade.query.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.AdjustmentReason;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockAdjusted;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.serialization.Serializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The reconciliation against the real event store, read model and a Redis of its own (see {@link
 * GateFixture}), with a long in-flight bound: what work in flight explains is IN_FLIGHT, and
 * nothing here turns into DRIFT by waiting. (The schedule is off: every check is one this test asks
 * for.)
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.reconciliation.in-flight-bound=10m",
      "stockade.reconciliation.interval=0s",
      "stockade.reconciliation.max-age=0s"
    })
@DirtiesContext
class ReconciliationIntegrationTest {

  private static final EmbeddedRedis REDIS = GateFixture.ownRedis("reconciliation-redis");

  @DynamicPropertySource
  static void ownRedis(DynamicPropertyRegistry properties) {
    GateFixture.useRedis(properties, REDIS);
  }

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private StringRedisTemplate redis;
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
  void gateEventsAndReadModelThatAgreeAreConsistent() {
    String sku = GateFixture.unique("rc-ok");
    String reservation = GateFixture.unique("rc-O");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.append(reservation, 0, gate.reserved(reservation, sku, 2));
    gate.counters(sku, 8, 2, 0);
    gate.intent(reservation, "RESERVED", sku, 2);

    // Both projections caught up: the SKU agrees, and so does the reservation.
    JsonNode report =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> sku(sku).getBody(),
                answer ->
                    answer.has("skus")
                        && answer.get("skus").get(0).get("status").asString().equals("CONSISTENT")
                        && mismatch(answer, reservation) == null);

    JsonNode line = report.get("skus").get(0);
    assertThat(numbers(line.get("gate"))).containsExactly(10L, 8L, 2L, 0L);
    assertThat(numbers(line.get("events"))).containsExactly(10L, 8L, 2L, 0L);
    assertThat(numbers(line.get("readModel"))).containsExactly(10L, 8L, 2L, 0L);
    assertThat(numbers(line.get("difference").get("gate"))).containsExactly(0L, 0L, 0L, 0L);
    assertThat(report.get("gate").get("status").asString()).isEqualTo("AVAILABLE");

    // The whole report lists the SKU too.
    JsonNode all = http.get("/api/reconciliation").getBody();
    assertThat(all.get("generatedAt").isString()).isTrue();
    assertThat(all.get("summary").get("skus").asInt()).isGreaterThanOrEqualTo(1);
    assertThat(all.get("skus").findValuesAsString("skuId")).contains(sku);
  }

  @Test
  void anAdmissionNotYetRecordedIsInFlightThenConsistentOnceItsEventIsStored() {
    String sku = GateFixture.unique("rc-fly");
    String reservation = GateFixture.unique("rc-P");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.counters(sku, 10, 0, 0);
    awaitStatus(sku, "CONSISTENT");

    // Admitted by the gate; its StockReserved is not stored yet.
    gate.admit(reservation, sku, 3);
    JsonNode line = sku(sku).getBody().get("skus").get(0);
    assertThat(line.get("status").asString()).isEqualTo("IN_FLIGHT");
    assertThat(numbers(line.get("gate"))).containsExactly(10L, 7L, 3L, 0L);
    assertThat(numbers(line.get("events"))).containsExactly(10L, 10L, 0L, 0L);
    JsonNode difference = line.get("difference");
    assertThat(numbers(difference.get("gate"))).containsExactly(0L, -3L, 3L, 0L);
    assertThat(difference.get("inFlight").get("pendingAdmissions").asInt()).isEqualTo(1);
    assertThat(numbers(difference.get("unexplained"))).containsExactly(0L, 0L, 0L, 0L);

    // Recorded, then taken off the pending list, as the command side does.
    StockReserved event = gate.reserved(reservation, sku, 3);
    gate.append(reservation, 0, event);
    gate.recorded(reservation);

    JsonNode report = awaitStatus(sku, "CONSISTENT");
    assertThat(numbers(report.get("skus").get(0).get("events"))).containsExactly(10L, 7L, 3L, 0L);
  }

  @Test
  void anAdjustmentTakenButNotYetRecordedIsInFlightThenConsistentOnceItsEventIsStored() {
    String sku = GateFixture.unique("rc-adj");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.counters(sku, 10, 0, 0);
    awaitStatus(sku, "CONSISTENT");

    // The gate took 4 available units for a negative adjustment; its StockAdjusted is not stored.
    gate.take(sku, "A-1", 4);
    JsonNode line = sku(sku).getBody().get("skus").get(0);
    assertThat(line.get("status").asString()).isEqualTo("IN_FLIGHT");
    assertThat(numbers(line.get("gate"))).containsExactly(6L, 6L, 0L, 0L);
    assertThat(numbers(line.get("events"))).containsExactly(10L, 10L, 0L, 0L);
    JsonNode difference = line.get("difference");
    assertThat(numbers(difference.get("gate"))).containsExactly(-4L, -4L, 0L, 0L);
    assertThat(difference.get("inFlight").get("pendingAdjustments").asInt()).isEqualTo(1);
    assertThat(numbers(difference.get("inFlight").get("numbers")))
        .containsExactly(-4L, -4L, 0L, 0L);
    assertThat(numbers(difference.get("unexplained"))).containsExactly(0L, 0L, 0L, 0L);
    assertThat(line.path("since").isString()).isFalse();

    // Stored, still PENDING in the gate (not marked yet): the two agree.
    gate.append(sku, 1, new StockAdjusted(sku, "A-1", -4, AdjustmentReason.DAMAGED, null));
    JsonNode report = awaitStatus(sku, "CONSISTENT");
    assertThat(numbers(report.get("skus").get(0).get("events"))).containsExactly(6L, 6L, 0L, 0L);
    gate.takeRecorded(sku, "A-1");
    report = awaitStatus(sku, "CONSISTENT");
    assertThat(
            report
                .get("skus")
                .get(0)
                .get("difference")
                .get("inFlight")
                .get("pendingAdjustments")
                .asInt())
        .isZero();
  }

  @Test
  void aDifferenceNoWorkExplainsIsNotConsistent() {
    String sku = GateFixture.unique("rc-off");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.counters(sku, 10, 0, 0);
    awaitStatus(sku, "CONSISTENT");

    gate.increment(sku, "available", 3);

    JsonNode line = sku(sku).getBody().get("skus").get(0);
    // Within the (long) bound: in flight, but unexplained.
    assertThat(line.get("status").asString()).isEqualTo("IN_FLIGHT");
    assertThat(numbers(line.get("difference").get("unexplained"))).containsExactly(3L, 3L, 0L, 0L);
    assertThat(line.get("since").isString()).isTrue();
  }

  @Test
  void anIntentConfirmedWhileTheReadModelSaysReservedIsAMismatch() {
    String sku = GateFixture.unique("rc-mis");
    String reservation = GateFixture.unique("rc-M");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.append(reservation, 0, gate.reserved(reservation, sku, 2));
    // The gate has the reservation confirmed; the record (and so the read model) does not.
    gate.counters(sku, 8, 0, 2);
    gate.intent(reservation, "CONFIRMED", sku, 2);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                "RESERVED"
                    .equals(
                        jdbc
                            .queryForList(
                                "select status from reservation_view where reservation_id = ?",
                                String.class,
                                reservation)
                            .stream()
                            .findFirst()
                            .orElse(null)));

    JsonNode report = sku(sku).getBody();

    JsonNode mismatch = mismatch(report, reservation);
    assertThat(mismatch).isNotNull();
    assertThat(mismatch.get("intent").asString()).isEqualTo("CONFIRMED");
    assertThat(mismatch.get("readModel").asString()).isEqualTo("RESERVED");
    assertThat(mismatch.get("skuIds").get(0).asString()).isEqualTo(sku);
    assertThat(mismatch.get("status").asString()).isEqualTo("IN_FLIGHT");
    assertThat(report.get("skus").get(0).get("status").asString()).isNotEqualTo("CONSISTENT");
    // The whole report counts it, and lists it unless more mismatches than it lists are known
    // (the suite's database keeps other tests' RESERVED reservations, without an intent here).
    JsonNode whole = http.get("/api/reconciliation").getBody();
    JsonNode summary = whole.get("summary");
    assertThat(summary.get("reservationMismatches").asInt()).isPositive();
    if (summary.get("reservationMismatchesListed").asInt()
        == summary.get("reservationMismatches").asInt()) {
      assertThat(mismatch(whole, reservation)).isNotNull();
    }
  }

  @Test
  void aSkuWithCountersInTwoPartitionsIsTheirSum() {
    String sku = GateFixture.unique("rc-sum");
    String reservation = GateFixture.unique("rc-S");
    String other = GateFixture.newTag();
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.append(reservation, 0, gate.reserved(reservation, sku, 3));
    // The SKU's units spread over two partitions (hot-SKU buckets), the reservation in one.
    gate.counters(sku, 2, 3, 0);
    gate.counters(other, sku, 5, 0, 0);
    gate.intent(reservation, "RESERVED", sku, 3);

    JsonNode line = awaitStatus(sku, "CONSISTENT").get("skus").get(0);
    assertThat(numbers(line.get("gate"))).containsExactly(10L, 7L, 3L, 0L);
    assertThat(numbers(line.get("events"))).containsExactly(10L, 7L, 3L, 0L);

    // A change in either partition changes the sum.
    gate.increment(other, sku, "available", 1);
    line = sku(sku).getBody().get("skus").get(0);
    assertThat(numbers(line.get("gate"))).containsExactly(11L, 8L, 3L, 0L);
    assertThat(numbers(line.get("difference").get("unexplained"))).containsExactly(1L, 1L, 0L, 0L);
  }

  @Test
  void aReservationWithPartsInTwoPartitionsIsOneReservation() {
    String first = GateFixture.unique("rc-pa");
    String second = GateFixture.unique("rc-pb");
    String reservation = GateFixture.unique("rc-T");
    String other = GateFixture.newTag();
    gate.append(first, 0, new SkuRegistered(first, 10, null));
    gate.append(second, 0, new SkuRegistered(second, 10, null));
    gate.counters(first, 10, 0, 0);
    gate.counters(other, second, 10, 0, 0);
    awaitStatus(first, "CONSISTENT");
    awaitStatus(second, "CONSISTENT");

    // Admitted in both partitions, one part each; its StockReserved is not stored yet.
    gate.admit(reservation, first, 2);
    gate.admit(other, reservation, second, 3);
    for (String sku : List.of(first, second)) {
      JsonNode report = sku(sku).getBody();
      JsonNode line = report.get("skus").get(0);
      assertThat(line.get("status").asString()).isEqualTo("IN_FLIGHT");
      assertThat(line.get("difference").get("inFlight").get("pendingAdmissions").asInt())
          .isEqualTo(1);
      assertThat(numbers(line.get("difference").get("unexplained")))
          .containsExactly(0L, 0L, 0L, 0L);
      assertThat(report.get("gate").get("pendingAdmissions").asInt()).isEqualTo(2);
    }

    // Recorded: one reservation of both SKUs, as the read model has it.
    List<ReservationLine> lines =
        List.of(new ReservationLine(first, 2), new ReservationLine(second, 3));
    gate.append(reservation, 0, gate.reserved(reservation, lines));
    gate.recorded(reservation);
    awaitStatus(first, "CONSISTENT");
    JsonNode recorded =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> sku(second).getBody(),
                answer ->
                    answer.has("skus")
                        && answer.get("skus").get(0).get("status").asString().equals("CONSISTENT")
                        && "RESERVED".equals(readModelStatus(reservation))
                        && mismatch(answer, reservation) == null);
    assertThat(numbers(recorded.get("skus").get(0).get("gate"))).containsExactly(10L, 7L, 3L, 0L);

    // Confirmed and stored; the gate has applied it in the first partition only so far.
    gate.append(reservation, 1, new StockConfirmed(reservation, "u-1", lines, Instant.now()));
    gate.increment(first, "reserved", -2);
    gate.increment(first, "sold", 2);
    gate.state(gate.tag(), reservation, "CONFIRMED");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> "CONFIRMED".equals(readModelStatus(reservation)));

    // The confirmed part's SKU agrees; the other's units are still reserved, which the part
    // still RESERVED explains; the reservation reads as RESERVED, in flight, against CONFIRMED.
    JsonNode done = awaitStatus(first, "CONSISTENT").get("skus").get(0);
    assertThat(numbers(done.get("gate"))).containsExactly(10L, 8L, 0L, 2L);
    JsonNode halfway = sku(second).getBody();
    JsonNode line = halfway.get("skus").get(0);
    assertThat(line.get("status").asString()).isEqualTo("IN_FLIGHT");
    assertThat(line.get("difference").get("inFlight").get("gateUpdatesToApply").asInt())
        .isEqualTo(1);
    assertThat(numbers(line.get("difference").get("unexplained"))).containsExactly(0L, 0L, 0L, 0L);
    JsonNode mismatch = mismatch(halfway, reservation);
    assertThat(mismatch).isNotNull();
    assertThat(mismatch.get("intent").asString()).isEqualTo("RESERVED");
    assertThat(mismatch.get("readModel").asString()).isEqualTo("CONFIRMED");
    List<String> skuIds = new ArrayList<>();
    mismatch.get("skuIds").forEach(id -> skuIds.add(id.asString()));
    assertThat(skuIds).containsExactlyInAnyOrder(first, second);

    // The second partition applies it too: all agree.
    gate.increment(other, second, "reserved", -3);
    gate.increment(other, second, "sold", 3);
    gate.state(other, reservation, "CONFIRMED");
    JsonNode after = awaitStatus(second, "CONSISTENT");
    assertThat(numbers(after.get("skus").get(0).get("gate"))).containsExactly(10L, 7L, 0L, 3L);
    assertThat(mismatch(after, reservation)).isNull();
  }

  @Test
  void aPartialConfirmationTheGateAppliedIsConsistent() {
    String first = GateFixture.unique("rc-pc1");
    String second = GateFixture.unique("rc-pc2");
    String reservation = GateFixture.unique("rc-PC");
    gate.append(first, 0, new SkuRegistered(first, 10, null));
    gate.append(second, 0, new SkuRegistered(second, 10, null));
    List<ReservationLine> lines =
        List.of(new ReservationLine(first, 3), new ReservationLine(second, 2));
    StockReserved reserved = gate.reserved(reservation, lines);
    gate.append(reservation, 0, reserved);
    Instant end = reserved.expiresAt().plusSeconds(600);
    gate.append(reservation, 1, new ReservationExtended(reservation, "u-1", end, Instant.now()));
    // One unit of the first SKU sold; the rest (two of it, all of the second) given back.
    Instant confirmedAt = Instant.now();
    partiallyConfirmed(reservation, 2, first, second, confirmedAt);
    // The gate as the command side leaves it: counters moved, the intent CONFIRMED with its lines
    // as reserved and the units sold of each.
    gate.counters(first, 9, 0, 1);
    gate.counters(second, 10, 0, 0);
    gate.intent(gate.tag(), reservation, "CONFIRMED", first + " 3 " + second + " 2");
    gate.confirmedInPart(gate.tag(), reservation, first + " 1 " + second + " 0");
    gate.extended(gate.tag(), reservation, end);

    JsonNode report =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> sku(first).getBody(),
                answer ->
                    answer.has("skus")
                        && answer.get("skus").get(0).get("status").asString().equals("CONSISTENT")
                        && "CONFIRMED".equals(readModelStatus(reservation))
                        && mismatch(answer, reservation) == null);

    JsonNode line = report.get("skus").get(0);
    assertThat(numbers(line.get("gate"))).containsExactly(10L, 9L, 0L, 1L);
    assertThat(numbers(line.get("events"))).containsExactly(10L, 9L, 0L, 1L);
    assertThat(numbers(line.get("readModel"))).containsExactly(10L, 9L, 0L, 1L);
    JsonNode other = awaitStatus(second, "CONSISTENT");
    assertThat(numbers(other.get("skus").get(0).get("events"))).containsExactly(10L, 10L, 0L, 0L);
    assertThat(mismatch(other, reservation)).isNull();
    // A full check reads the intent too: it agrees.
    JsonNode full = http.get("/api/reconciliation/skus/" + first + "?full=true").getBody();
    assertThat(full.get("gate").get("scope").asString()).isEqualTo("FULL");
    assertThat(mismatch(full, reservation)).isNull();
  }

  @Test
  void aPartialConfirmationStillToBeAppliedByTheGateIsExplainedPartByPart() {
    String first = GateFixture.unique("rc-pf1");
    String second = GateFixture.unique("rc-pf2");
    String reservation = GateFixture.unique("rc-PF");
    String other = GateFixture.newTag();
    gate.append(first, 0, new SkuRegistered(first, 10, null));
    gate.append(second, 0, new SkuRegistered(second, 10, null));
    List<ReservationLine> lines =
        List.of(new ReservationLine(first, 3), new ReservationLine(second, 2));
    gate.append(reservation, 0, gate.reserved(reservation, lines));
    // Reserved in two partitions, one part each, as the gate holds it.
    gate.counters(first, 7, 3, 0);
    gate.counters(other, second, 8, 2, 0);
    gate.intent(gate.tag(), reservation, "RESERVED", first + " 3");
    gate.intent(other, reservation, "RESERVED", second + " 2");
    awaitStatus(first, "CONSISTENT");
    awaitStatus(second, "CONSISTENT");

    // Confirmed in part and stored: one unit of the first SKU sold, the rest given back. The
    // gate has not applied it yet.
    partiallyConfirmed(reservation, 1, first, second, Instant.now());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> "CONFIRMED".equals(readModelStatus(reservation)));

    // The gate still holds three units of the first SKU reserved: one the record sold, two it
    // gave back.
    JsonNode line = awaitEvents(first, 10, 9, 0, 1);
    assertThat(line.get("status").asString()).isEqualTo("IN_FLIGHT");
    assertThat(numbers(line.get("difference").get("gate"))).containsExactly(0L, -2L, 3L, -1L);
    assertThat(line.get("difference").get("inFlight").get("gateUpdatesToApply").asInt())
        .isEqualTo(1);
    assertThat(numbers(line.get("difference").get("unexplained"))).containsExactly(0L, 0L, 0L, 0L);
    line = awaitEvents(second, 10, 10, 0, 0);
    assertThat(line.get("status").asString()).isEqualTo("IN_FLIGHT");
    assertThat(numbers(line.get("difference").get("gate"))).containsExactly(0L, -2L, 2L, 0L);
    assertThat(numbers(line.get("difference").get("unexplained"))).containsExactly(0L, 0L, 0L, 0L);
    JsonNode mismatch = mismatch(sku(first).getBody(), reservation);
    assertThat(mismatch.get("intent").asString()).isEqualTo("RESERVED");
    assertThat(mismatch.get("readModel").asString()).isEqualTo("CONFIRMED");

    // The first partition applies it; the second's part is still RESERVED and explained.
    gate.increment(first, "reserved", -3);
    gate.increment(first, "sold", 1);
    gate.increment(first, "available", 2);
    gate.confirmedInPart(gate.tag(), reservation, first + " 1");
    JsonNode done = awaitStatus(first, "CONSISTENT").get("skus").get(0);
    assertThat(numbers(done.get("gate"))).containsExactly(10L, 9L, 0L, 1L);
    JsonNode halfway = sku(second).getBody().get("skus").get(0);
    assertThat(halfway.get("status").asString()).isEqualTo("IN_FLIGHT");
    assertThat(numbers(halfway.get("difference").get("unexplained")))
        .containsExactly(0L, 0L, 0L, 0L);

    // The second applies it too: all agree.
    gate.increment(other, second, "reserved", -2);
    gate.increment(other, second, "available", 2);
    gate.confirmedInPart(other, reservation, second + " 0");
    JsonNode after = awaitStatus(second, "CONSISTENT");
    assertThat(numbers(after.get("skus").get(0).get("gate"))).containsExactly(10L, 10L, 0L, 0L);
    assertThat(mismatch(after, reservation)).isNull();
  }

  @Test
  void aPartialConfirmationTheGateAppliedWholeIsAMismatchOfTheUnitsSold() {
    String sku = GateFixture.unique("rc-pw");
    String reservation = GateFixture.unique("rc-PW");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    gate.append(reservation, 0, gate.reserved(reservation, sku, 3));
    Instant confirmedAt = Instant.now();
    gate.append(
        reservation,
        1,
        new StockConfirmed(reservation, "u-1", List.of(new ReservationLine(sku, 1)), confirmedAt));
    gate.append(
        reservation,
        2,
        new StockReleased(
            reservation,
            "u-1",
            List.of(new ReservationLine(sku, 2)),
            StockReleased.NOT_CONFIRMED,
            confirmedAt));
    // The gate sold all three: no confirmed field, the counters of a full confirmation.
    gate.counters(sku, 7, 0, 3);
    gate.intent(reservation, "CONFIRMED", sku, 3);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> "CONFIRMED".equals(readModelStatus(reservation)));

    JsonNode report = awaitEvents(sku, 10, 9, 0, 1);
    JsonNode line = report;
    assertThat(line.get("status").asString()).isNotEqualTo("CONSISTENT");
    assertThat(numbers(line.get("difference").get("unexplained"))).containsExactly(0L, -2L, 0L, 2L);
    JsonNode mismatch = mismatch(sku(sku).getBody(), reservation);
    assertThat(mismatch).isNotNull();
    assertThat(mismatch.get("intent").asString()).isEqualTo("CONFIRMED");
    assertThat(mismatch.get("readModel").asString()).isEqualTo("CONFIRMED");
    assertThat(mismatch.get("sold").get("intent").get(sku).asLong()).isEqualTo(3);
    assertThat(mismatch.get("sold").get("readModel").get(sku).asLong()).isEqualTo(1);
    assertThat(mismatch.get("status").asString()).isEqualTo("IN_FLIGHT");
  }

  /**
   * As the command side stores a partial confirmation of {@code first} and {@code second}: one unit
   * of the first sold, and right after, in the same transaction, a NOT_CONFIRMED release of every
   * other reserved unit (two of the first, two of the second), stamped with the confirmation's
   * time.
   */
  private void partiallyConfirmed(
      String reservation, long sequence, String first, String second, Instant at) {
    transaction.executeWithoutResult(
        status -> {
          gate.append(
              reservation,
              sequence,
              new StockConfirmed(reservation, "u-1", List.of(new ReservationLine(first, 1)), at));
          gate.append(
              reservation,
              sequence + 1,
              new StockReleased(
                  reservation,
                  "u-1",
                  List.of(new ReservationLine(first, 2), new ReservationLine(second, 2)),
                  StockReleased.NOT_CONFIRMED,
                  at));
        });
  }

  /** The SKU's line of the report once its events add up to these numbers. */
  private JsonNode awaitEvents(String sku, long total, long available, long reserved, long sold) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> sku(sku).getBody(),
            report ->
                report.has("skus")
                    && numbers(report.get("skus").get(0).get("events"))
                        .equals(List.of(total, available, reserved, sold)))
        .get("skus")
        .get(0);
  }

  @Test
  void withRedisUnreachableTheReportAnswersWithoutTheGateAndNoSkuIsConsistent() {
    String sku = GateFixture.unique("rc-nogate");
    gate.append(sku, 0, new SkuRegistered(sku, 10, null));
    LettuceConnectionFactory nowhere =
        new LettuceConnectionFactory(
            new RedisStandaloneConfiguration("127.0.0.1", 1),
            LettuceClientConfiguration.builder().commandTimeout(Duration.ofMillis(500)).build());
    nowhere.afterPropertiesSet();
    try {
      Reconciliation withoutGate =
          new Reconciliation(
              new GateReader(new StringRedisTemplate(nowhere)),
              fold,
              serializer,
              jdbc,
              new SimpleMeterRegistry(),
              Clock.systemUTC(),
              Duration.ofMinutes(10));

      ReconciliationReport report =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(
                  withoutGate::check,
                  answer ->
                      answer.skus().stream()
                          .anyMatch(
                              line ->
                                  line.skuId().equals(sku)
                                      && new Numbers(10, 10, 0, 0).equals(line.readModel())));

      assertThat(report.gate().status()).isEqualTo("UNAVAILABLE");
      assertThat(report.gate().error()).isNotBlank();
      ReconciliationReport.Sku line =
          report.skus().stream().filter(s -> s.skuId().equals(sku)).findFirst().orElseThrow();
      assertThat(line.gate()).isNull();
      assertThat(line.events()).isEqualTo(new Numbers(10, 10, 0, 0));
      assertThat(line.readModel()).isEqualTo(new Numbers(10, 10, 0, 0));
      assertThat(line.status())
          .as("the read model agrees, but the gate was not compared")
          .isEqualTo("UNKNOWN");
      assertThat(report.summary().consistent()).isZero();
      assertThat(report.summary().reservationMismatches()).isNull();
    } finally {
      nowhere.destroy();
    }
  }

  @Test
  void anUnknownSkuIsAProblemAndAMalformedOneIsRejected() {
    ResponseEntity<JsonNode> unknown = sku(GateFixture.unique("rc-absent"));
    assertThat(unknown.getStatusCode().value()).isEqualTo(404);
    assertThat(unknown.getBody().get("type").asString()).endsWith("/unknown-sku");

    ResponseEntity<JsonNode> malformed = sku("a%7Bb%7D");
    assertThat(malformed.getStatusCode().value()).isEqualTo(400);
    assertThat(malformed.getBody().get("type").asString()).endsWith("/invalid-request");
  }

  private JsonNode awaitStatus(String sku, String status) {
    return await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> sku(sku).getBody(),
            report ->
                report.has("skus")
                    && report.get("skus").get(0).get("status").asString().equals(status));
  }

  private String readModelStatus(String reservation) {
    return jdbc
        .queryForList(
            "select status from reservation_view where reservation_id = ?",
            String.class,
            reservation)
        .stream()
        .findFirst()
        .orElse(null);
  }

  private ResponseEntity<JsonNode> sku(String sku) {
    return http.get("/api/reconciliation/skus/" + sku);
  }

  static JsonNode mismatch(JsonNode report, String reservation) {
    for (JsonNode mismatch : report.get("reservationMismatches")) {
      if (mismatch.get("reservationId").asString().equals(reservation)) {
        return mismatch;
      }
    }
    return null;
  }

  static java.util.List<Long> numbers(JsonNode numbers) {
    return java.util.List.of(
        numbers.get("total").asLong(),
        numbers.get("available").asLong(),
        numbers.get("reserved").asLong(),
        numbers.get("sold").asLong());
  }
}
