package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.sku.SaleStatus.State;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.admission.ReservationTransitions.Transition;
import io.stockade.command.admission.SaleControl.SaleWrite;
import io.stockade.command.admission.SaleControl.SkuState;
import io.stockade.command.admission.decisions.DecisionDrain;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A SKU's sale in the gate: reserve refuses it before it opens, from its close on and while it is
 * paused, by Redis's clock, as decisions of their own; the sale state is written by version, so a
 * late or repeated write changes nothing; confirm, release and extend ignore the sale.
 */
class RedisAdmissionGateSaleTest {

  private static final Duration HOLD = Duration.ofMinutes(15);
  private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");

  private final StringRedisTemplate redis = TestRedis.shared();
  private final WholeGate gate = TestRedis.gate(redis, Duration.ofHours(24));
  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @Test
  void refusesBeforeOpensAtByRedisClockAndAdmitsOnceItIsReached() {
    String sku = sku("opens");
    gate.register(sku, 10, null, 1);
    Instant opensAt = redisNow().plusMillis(1500);
    assertThat(gate.schedule(sku, 1, opensAt, null)).isEqualTo(SaleWrite.APPLIED);
    Map<String, String> before = counters(sku);

    AdmissionDecision early = gate.reserve(admission("O-" + run, "u-1", line(sku, 1)));

    assertThat(early).isInstanceOf(AdmissionDecision.SaleNotOpen.class);
    AdmissionDecision.SaleNotOpen notOpen = (AdmissionDecision.SaleNotOpen) early;
    assertThat(notOpen.skuId()).isEqualTo(sku);
    assertThat(notOpen.opensAt()).isEqualTo(opensAt);
    assertThat(notOpen.now()).isBefore(opensAt);
    assertThat(counters(sku)).isEqualTo(before);
    assertThat(gate.state(sku).orElseThrow().sale(0, null).state()).isEqualTo(State.SCHEDULED);
    assertThat(outcomes("O-" + run)).containsExactly("SALE_NOT_OPEN");

    await().atMost(Duration.ofSeconds(10)).until(() -> !redisNow().isBefore(opensAt));
    assertThat(gate.reserve(admission("O-" + run, "u-1", line(sku, 1))))
        .isInstanceOf(AdmissionDecision.Admitted.class);
    assertThat(gate.state(sku).orElseThrow().sale(0, null).state()).isEqualTo(State.OPEN);
  }

  @Test
  void refusesAtAndAfterClosesAtWhileHoldsTakenBeforeStillEnd() {
    String sku = sku("closes");
    gate.register(sku, 10, null, 1);
    Instant closesAt = redisNow().plusMillis(1500);
    gate.schedule(sku, 1, null, closesAt);
    AdmissionId kept = admitted(admission("K-" + run, "u-1", line(sku, 2)));
    AdmissionId released = admitted(admission("R-" + run, "u-2", line(sku, 3)));

    await().atMost(Duration.ofSeconds(10)).until(() -> !redisNow().isBefore(closesAt));

    assertThat(gate.reserve(admission("L-" + run, "u-3", line(sku, 1))))
        .isEqualTo(new AdmissionDecision.SaleClosed(sku, 0, closesAt));
    assertThat(outcomes("L-" + run)).containsExactly("SALE_CLOSED");
    assertThat(gate.state(sku).orElseThrow().sale(0, null).state()).isEqualTo(State.CLOSED);
    List<ReservationLine> lines = List.of(line(sku, 1));
    assertThat(gate.extend("K-" + run, kept, lines, NOW.plus(HOLD).plusSeconds(60)))
        .isEqualTo(Transition.DONE);
    assertThat(gate.confirm("K-" + run, kept, lines)).isEqualTo(Transition.DONE);
    assertThat(gate.release("R-" + run, released, lines, "EXPIRED")).isEqualTo(Transition.DONE);
    assertThat(counters(sku))
        .containsEntry("available", "8")
        .containsEntry("reserved", "0")
        .containsEntry("sold", "2");
  }

  @Test
  void aPausedSaleRefusesAndAResumedOneAdmits() {
    String sku = sku("paused");
    gate.register(sku, 10, null, 1);
    AdmissionId held = admitted(admission("H-" + run, "u-1", line(sku, 2)));
    assertThat(gate.pause(sku, 3, true)).isEqualTo(SaleWrite.APPLIED);

    assertThat(gate.reserve(admission("P-" + run, "u-2", line(sku, 1))))
        .isEqualTo(new AdmissionDecision.SalePaused(sku, 0));
    assertThat(outcomes("P-" + run)).containsExactly("SALE_PAUSED");
    assertThat(gate.state(sku).orElseThrow().sale(0, null).state()).isEqualTo(State.PAUSED);
    assertThat(gate.confirm("H-" + run, held, List.of(line(sku, 2))))
        .as("a pause leaves the holds taken before it")
        .isEqualTo(Transition.DONE);

    assertThat(gate.pause(sku, 4, false)).isEqualTo(SaleWrite.APPLIED);
    assertThat(gate.reserve(admission("P-" + run, "u-2", line(sku, 1))))
        .isInstanceOf(AdmissionDecision.Admitted.class);
  }

  /** The sale is checked for every line before any line's stock, in line order. */
  @Test
  void theSaleOfEveryLineIsCheckedBeforeStockAndTakesNothing() {
    String open = sku("open");
    String paused = sku("other");
    gate.register(open, 1, null, 1);
    gate.register(paused, 10, null, 1);
    gate.pause(paused, 1, true);

    assertThat(gate.reserve(admission("O-" + run, "u-1", line(open, 5), line(paused, 1))))
        .isEqualTo(new AdmissionDecision.SalePaused(paused, 1));
    assertThat(counters(open)).containsEntry("available", "1");
  }

  @Test
  void aTightenedLimitLetsAUserKeepUnitsAndRefusesMore() {
    String sku = sku("limit");
    gate.register(sku, 10, 5, 1);
    AdmissionId held = admitted(admission("A-" + run, "u-1", line(sku, 4)));

    assertThat(gate.limit(sku, 7, 2)).isEqualTo(SaleWrite.APPLIED);

    assertThat(gate.reserve(admission("B-" + run, "u-1", line(sku, 1))))
        .isEqualTo(new AdmissionDecision.LimitExceeded(sku, 0, 2, 4));
    assertThat(gate.reserve(admission("C-" + run, "u-2", line(sku, 2))))
        .isInstanceOf(AdmissionDecision.Admitted.class);
    assertThat(gate.confirm("A-" + run, held, List.of(line(sku, 4)))).isEqualTo(Transition.DONE);
    assertThat(gate.state(sku).orElseThrow().perUserLimit()).isEqualTo(2L);

    assertThat(gate.limit(sku, 8, null)).isEqualTo(SaleWrite.APPLIED);
    assertThat(gate.reserve(admission("D-" + run, "u-1", line(sku, 3))))
        .isInstanceOf(AdmissionDecision.Admitted.class);
    assertThat(gate.state(sku).orElseThrow().perUserLimit()).isNull();
  }

  /**
   * Each part of the sale state keeps the version it was written with: an older or repeated write
   * of that part changes nothing, whatever the other parts' versions.
   */
  @Test
  void versionedWritesAppliedOutOfOrderLeaveTheNewest() {
    String sku = sku("versions");
    gate.register(sku, 10, null, 1);
    Instant opens = Instant.parse("2026-12-24T10:00:00Z");
    Instant closes = Instant.parse("2026-12-24T12:00:00Z");

    assertThat(gate.pause(sku, 5, false)).isEqualTo(SaleWrite.APPLIED);
    assertThat(gate.pause(sku, 4, true)).as("an older pause").isEqualTo(SaleWrite.STALE);
    assertThat(gate.pause(sku, 5, false)).as("a repeat").isEqualTo(SaleWrite.STALE);
    assertThat(gate.schedule(sku, 2, opens, closes))
        .as("a schedule older than the pause: another part")
        .isEqualTo(SaleWrite.APPLIED);
    assertThat(gate.schedule(sku, 1, null, null)).isEqualTo(SaleWrite.STALE);
    assertThat(gate.limit(sku, 6, 3)).isEqualTo(SaleWrite.APPLIED);
    assertThat(gate.limit(sku, 3, 1)).isEqualTo(SaleWrite.STALE);
    assertThat(gate.schedule(sku, 9, opens, null)).isEqualTo(SaleWrite.APPLIED);

    SkuState state = gate.state(sku).orElseThrow();
    assertThat(state.paused()).isFalse();
    assertThat(state.opensAt()).isEqualTo(opens);
    assertThat(state.closesAt()).as("cleared by the newer schedule").isNull();
    assertThat(state.perUserLimit()).isEqualTo(3L);
    assertThat(gate.schedule("nope-" + run, 1, opens, null)).isEqualTo(SaleWrite.UNKNOWN_SKU);
    assertThat(gate.state("nope-" + run)).isEmpty();
  }

  /** A SKU in buckets holds its sale state in every bucket, and its state sums them. */
  @Test
  void everyBucketHoldsTheSaleAndTheStateSumsTheBuckets() {
    GateLayout layout = new GateLayout(4, null);
    WholeGate split = TestRedis.gate(redis, layout, Duration.ofHours(24));
    String sku = sku("buckets");
    split.register(sku, 9, null, 3);
    assertThat(split.pause(sku, 1, true)).isEqualTo(SaleWrite.APPLIED);

    List<String> users = new ArrayList<>();
    for (int n = 0; users.size() < 3; n++) {
      String user = "u-" + n;
      if (GateLayout.bucketOf(user, 3) == users.size()) {
        users.add(user);
      }
    }
    for (String user : users) {
      assertThat(split.reserve(admission("O-" + run + user, user, line(sku, 1))))
          .as("refused in the bucket of %s", user)
          .isEqualTo(new AdmissionDecision.SalePaused(sku, 0));
    }
    split.pause(sku, 2, false);
    assertThat(split.reserve(admission("O-" + run, users.get(1), line(sku, 2))))
        .isInstanceOf(AdmissionDecision.Admitted.class);

    SkuState state = split.state(sku).orElseThrow();
    assertThat(state.total()).isEqualTo(9);
    assertThat(state.available()).isEqualTo(7);
    assertThat(state.reserved()).isEqualTo(2);
    assertThat(state.sale(0, null).state()).isEqualTo(State.OPEN);
  }

  private List<String> outcomes(String reservationId) {
    List<String> outcomes = new ArrayList<>();
    for (MapRecord<String, Object, Object> entry :
        redis.opsForStream().range(TestRedis.PARTITION.decisions(), Range.unbounded())) {
      if (String.valueOf(entry.getValue().get("d")).split(" ")[4].equals(reservationId)) {
        List<Object[]> rows = new ArrayList<>();
        DecisionDrain.rows(TestRedis.PARTITION, entry, rows);
        rows.forEach(row -> outcomes.add(String.valueOf(row[9])));
      }
    }
    return outcomes;
  }

  private AdmissionId admitted(Admission admission) {
    return ((AdmissionDecision.Admitted) gate.reserve(admission)).admission();
  }

  private String sku(String name) {
    return "sale-" + name + "-" + run;
  }

  private Instant redisNow() {
    return Instant.ofEpochMilli(
        redis.execute((RedisCallback<Long>) connection -> connection.serverCommands().time()));
  }

  private Map<String, String> counters(String sku) {
    Map<String, String> counters = new java.util.TreeMap<>();
    redis
        .opsForHash()
        .entries(TestRedis.LAYOUT.counters(sku))
        .forEach((field, value) -> counters.put(field.toString(), value.toString()));
    return counters;
  }

  private static Admission admission(String id, String user, ReservationLine... lines) {
    return new Admission(id, user, List.of(lines), HOLD, NOW);
  }

  private static ReservationLine line(String sku, int quantity) {
    return new ReservationLine(sku, quantity);
  }
}
