package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.SkuStock;
import io.stockade.command.admission.StockAdjustments.Adjustment;
import io.stockade.command.admission.StockAdjustments.AdjustmentOutcome;
import io.stockade.command.admission.StockAdjustments.PendingAdjustment;
import io.stockade.command.admission.StockAdjustments.Settlement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Stock adjustments in the gate: a negative one takes available units only, never below zero and
 * never reserved or sold ones, all or none, once per id, and stays pending until recorded or given
 * back; a positive one adds available units once per id.
 */
class RedisAdmissionGateAdjustmentTest {

  private static final Duration HOLD = Duration.ofMinutes(15);

  private final StringRedisTemplate redis = TestRedis.shared();
  private final WholeGate gate = TestRedis.gate(redis, Duration.ofHours(24));
  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @Test
  void aNegativeAdjustmentTakesAvailableUnitsOnlyAndRefusesBelowZero() {
    String sku = sku("take");
    gate.register(sku, 10, null, 1);
    reserve(sku, "O-" + run, "u-1", 4);

    assertThat(gate.adjust(sku, "A-1", -7))
        .usingRecursiveComparison()
        .ignoringFields("gateEpoch")
        .isEqualTo(new Adjustment(AdjustmentOutcome.INSUFFICIENT, 6L, null));
    assertThat(gate.adjust(sku, "A-1", -6))
        .as("the same id, refused before, takes afresh")
        .usingRecursiveComparison()
        .ignoringFields("gateEpoch")
        .isEqualTo(new Adjustment(AdjustmentOutcome.APPLIED, 0L, null));

    assertThat(counters(sku))
        .containsEntry("available", "0")
        .containsEntry("reserved", "4")
        .containsEntry("sold", "0");
  }

  @Test
  void anAdjustmentIsAppliedOncePerIdAndTheIdWithOtherContentIsAConflict() {
    String sku = sku("once");
    gate.register(sku, 10, null, 1);

    assertThat(gate.adjust(sku, "A-1", -3).outcome()).isEqualTo(AdjustmentOutcome.APPLIED);
    assertThat(gate.adjust(sku, "A-1", -3))
        .usingRecursiveComparison()
        .ignoringFields("gateEpoch")
        .isEqualTo(new Adjustment(AdjustmentOutcome.DUPLICATE, 7L, null));
    assertThat(gate.adjust(sku, "A-1", -4))
        .usingRecursiveComparison()
        .ignoringFields("gateEpoch")
        .isEqualTo(new Adjustment(AdjustmentOutcome.CONFLICT, null, -3L));
    assertThat(gate.adjust(sku, "A-1", 3))
        .as("one id space for both signs")
        .usingRecursiveComparison()
        .ignoringFields("gateEpoch")
        .isEqualTo(new Adjustment(AdjustmentOutcome.CONFLICT, null, -3L));
    assertThat(gate.adjust(sku, "A-2", 5))
        .usingRecursiveComparison()
        .ignoringFields("gateEpoch")
        .isEqualTo(new Adjustment(AdjustmentOutcome.APPLIED, 12L, null));
    assertThat(gate.adjust(sku, "A-2", 5))
        .usingRecursiveComparison()
        .ignoringFields("gateEpoch")
        .isEqualTo(new Adjustment(AdjustmentOutcome.DUPLICATE, 12L, null));
    assertThat(gate.replenish(sku, "A-2", 4))
        .as("replenishments have ids of their own")
        .isEqualTo(SkuStock.Replenishment.APPLIED);
    assertThat(gate.adjust("nope-" + run, "A-1", -1).outcome())
        .isEqualTo(AdjustmentOutcome.UNKNOWN_SKU);
    assertThat(counters(sku)).containsEntry("available", "16");
  }

  /**
   * A take stays pending, by Redis's clock, until it is marked recorded; one given back returns its
   * units and frees its id. A positive adjustment is never pending.
   */
  @Test
  void aTakeIsPendingUntilRecordedOrGivenBack() {
    String sku = sku("pending");
    gate.register(sku, 10, null, 1);
    gate.adjust(sku, "A-1", -2);
    gate.adjust(sku, "A-2", -3);
    gate.adjust(sku, "A-3", 1);

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(mine(gate.pendingAdjustmentsFor(Duration.ofMillis(50), 1000)))
                    .containsExactlyInAnyOrder("A-1", "A-2"));
    assertThat(mine(gate.pendingAdjustmentsFor(Duration.ofMinutes(5), 1000)))
        .as("younger than the bound")
        .isEmpty();

    assertThat(gate.adjustmentRecorded(sku, "A-1")).isEqualTo(Settlement.DONE);
    assertThat(gate.adjustmentRecorded(sku, "A-1")).isEqualTo(Settlement.ALREADY_DONE);
    assertThat(gate.giveBackAdjustment(sku, "A-1")).isEqualTo(Settlement.RECORDED);
    assertThat(gate.giveBackAdjustment(sku, "A-2")).isEqualTo(Settlement.DONE);
    assertThat(gate.giveBackAdjustment(sku, "A-2")).isEqualTo(Settlement.ALREADY_DONE);
    assertThat(gate.adjustmentRecorded(sku, "A-9")).isEqualTo(Settlement.UNKNOWN);
    assertThat(mine(gate.pendingAdjustmentsFor(Duration.ZERO, 1000))).isEmpty();
    assertThat(counters(sku)).containsEntry("available", "9");

    assertThat(gate.adjust(sku, "A-2", -3).outcome())
        .as("an id given back takes afresh")
        .isEqualTo(AdjustmentOutcome.APPLIED);
    assertThat(counters(sku)).containsEntry("available", "6");
  }

  /**
   * Threads reserving and threads adjusting downwards at once: available never goes below zero,
   * reserved and sold are only what the reservations took, and every unit is accounted for.
   */
  @Test
  void adjustmentsUnderConcurrentReservationsNeverGoBelowZeroNorTouchReservedUnits()
      throws Exception {
    String sku = sku("race");
    gate.register(sku, 500, null, 1);
    AtomicLong reserved = new AtomicLong();
    AtomicLong adjusted = new AtomicLong();
    ExecutorService threads = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        int thread = t;
        work.add(
            threads.submit(
                () -> {
                  for (int n = 0; n < 150; n++) {
                    AdmissionDecision decision =
                        gate.reserve(
                            new Admission(
                                "R-" + run + "-" + thread + "-" + n,
                                "u-" + thread + "-" + n,
                                List.of(new ReservationLine(sku, 2)),
                                HOLD,
                                Instant.now()));
                    if (decision instanceof AdmissionDecision.Admitted) {
                      reserved.addAndGet(2);
                    }
                  }
                }));
        work.add(
            threads.submit(
                () -> {
                  for (int n = 0; n < 150; n++) {
                    Adjustment adjustment = gate.adjust(sku, "A-" + thread + "-" + n, -3);
                    if (adjustment.outcome() == AdjustmentOutcome.APPLIED) {
                      adjusted.addAndGet(3);
                    }
                    assertThat(adjustment.outcome())
                        .isIn(AdjustmentOutcome.APPLIED, AdjustmentOutcome.INSUFFICIENT);
                  }
                }));
      }
      for (Future<?> done : work) {
        done.get();
      }
    } finally {
      threads.shutdownNow();
    }

    Map<Object, Object> counters = redis.opsForHash().entries(TestRedis.LAYOUT.counters(sku));
    long available = Long.parseLong(counters.get("available").toString());
    assertThat(available).isNotNegative();
    assertThat(counters).containsEntry("reserved", String.valueOf(reserved.get()));
    assertThat(counters).containsEntry("sold", "0");
    assertThat(available + reserved.get() + adjusted.get()).isEqualTo(500);
    assertThat(available).as("the last adjustments found too few").isLessThan(3 + 2);
  }

  /**
   * A SKU in buckets is taken across them; when all of them together hold too few, what was taken
   * is given back and the adjustment refused; a repeat of an applied one takes nothing more.
   */
  @Test
  void aSkuInBucketsIsTakenAcrossThemOrNotAtAll() {
    GateLayout layout = new GateLayout(4, null);
    WholeGate split = TestRedis.gate(redis, layout, Duration.ofHours(24));
    String sku = sku("buckets");
    split.register(sku, 9, null, 3);

    assertThat(split.adjust(sku, "A-1", -10))
        .usingRecursiveComparison()
        .ignoringFields("gateEpoch")
        .isEqualTo(new Adjustment(AdjustmentOutcome.INSUFFICIENT, 9L, null));
    assertThat(split.state(sku).orElseThrow().available()).isEqualTo(9);

    assertThat(split.adjust(sku, "A-2", -7))
        .usingRecursiveComparison()
        .ignoringFields("gateEpoch")
        .isEqualTo(new Adjustment(AdjustmentOutcome.APPLIED, 2L, null));
    assertThat(split.adjust(sku, "A-2", -7))
        .usingRecursiveComparison()
        .ignoringFields("gateEpoch")
        .isEqualTo(new Adjustment(AdjustmentOutcome.DUPLICATE, 2L, null));
    assertThat(split.adjust(sku, "A-2", -6).outcome()).isEqualTo(AdjustmentOutcome.CONFLICT);
    assertThat(split.adjust(sku, "A-3", 4).outcome())
        .as("a positive one, in the home bucket")
        .isEqualTo(AdjustmentOutcome.APPLIED);
    assertThat(split.state(sku).orElseThrow().available()).isEqualTo(6);

    assertThat(
            split.pendingAdjustmentsFor(Duration.ZERO, 1000).stream()
                .filter(p -> p.skuId().equals(sku))
                .map(PendingAdjustment::adjustmentId))
        .as("one take per bucket that gave units")
        .containsOnly("A-2")
        .hasSizeGreaterThan(1);
    assertThat(split.adjustmentRecorded(sku, "A-2")).isEqualTo(Settlement.DONE);
    assertThat(split.pendingAdjustmentsFor(Duration.ZERO, 1000))
        .noneMatch(p -> p.skuId().equals(sku));
  }

  private List<String> mine(List<PendingAdjustment> pending) {
    return pending.stream()
        .filter(p -> p.skuId().startsWith("adjust-pending-" + run))
        .map(PendingAdjustment::adjustmentId)
        .toList();
  }

  private void reserve(String sku, String id, String user, int quantity) {
    assertThat(
            gate.reserve(
                new Admission(
                    id, user, List.of(new ReservationLine(sku, quantity)), HOLD, Instant.now())))
        .isInstanceOf(AdmissionDecision.Admitted.class);
  }

  private String sku(String name) {
    return "adjust-" + name + "-" + run;
  }

  private Map<Object, Object> counters(String sku) {
    return redis.opsForHash().entries(TestRedis.LAYOUT.counters(sku));
  }
}
