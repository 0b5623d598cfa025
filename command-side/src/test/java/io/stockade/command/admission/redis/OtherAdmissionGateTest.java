package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.admission.ReservationTransitions.Transition;
import io.stockade.command.admission.ReservationTransitions.Withdrawal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The scripts against a real Redis when one reservation id has two admissions: reused by another
 * user (a SKU split into buckets places it in that user's bucket, another partition, where the id
 * has no intent yet), or admitted anew after the first one's intent expired. Every step names its
 * admission and leaves the other one alone.
 */
class OtherAdmissionGateTest {

  private static final Duration HOLD = Duration.ofMinutes(15);
  private static final GateLayout LAYOUT = new GateLayout(16, null);
  private static final int BUCKETS = 3;

  private final StringRedisTemplate redis = TestRedis.shared();
  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @Test
  void eachAdmissionOfAReusedIdInAnotherBucketIsEndedOnlyByItsOwnSteps() {
    WholeGate gate = TestRedis.gate(redis, LAYOUT, Duration.ofHours(24));
    String hot = "hot-" + run;
    gate.register(hot, 30, null, BUCKETS);
    List<GateLayout.Partition> buckets = LAYOUT.buckets(counters(LAYOUT.counters(hot), "buckets"));
    String winner = user("winner", 0);
    String loser = user("loser", 1);
    GateLayout.Partition winners = buckets.get(0);
    GateLayout.Partition losers = buckets.get(1);
    String id = "R-" + run;
    List<ReservationLine> lines = List.of(new ReservationLine(hot, 1));

    AdmissionId first = admit(gate, id, winner, hot, 2);
    AdmissionId second = admit(gate, id, loser, hot, 3);

    // (b) The winner's record clears its own pending entry, not the loser's.
    gate.recorded(id, first, lines);
    assertThat(pending(winners, id)).isFalse();
    assertThat(pending(losers, id)).as("the loser's entry, the sweeper's way to it").isTrue();
    assertThat(gate.withdraw(id, second, lines)).isEqualTo(Withdrawal.WITHDRAWN);
    assertThat(counters(losers.counters(hot), "reserved")).isEqualTo("0");
    assertThat(counters(winners.counters(hot), "reserved")).isEqualTo("2");

    // (a) The sweeper's release of an unrecorded admission of the id leaves the recorded one.
    AdmissionId third = admit(gate, id, loser, hot, 3);
    assertThat(gate.release(id, third, lines, "NOT_RECORDED")).isEqualTo(Transition.DONE);
    assertThat(counters(losers.counters(hot), "reserved")).isEqualTo("0");
    assertThat(counters(winners.counters(hot), "reserved")).isEqualTo("2");
    assertThat(redis.opsForHash().get(winners.intent(id), "state")).isEqualTo("RESERVED");

    assertThat(gate.confirm(id, first, lines)).isEqualTo(Transition.DONE);
    assertThat(counters(winners.counters(hot), "sold")).isEqualTo("2");
    assertThat(redis.opsForHash().get(losers.intent(id), "state")).isEqualTo("RELEASED");
    assertThat(gate.confirm(id, new AdmissionId(first.sequence() + 1, first.gateEpoch()), lines))
        .as("an admission the gate does not hold")
        .isEqualTo(Transition.OTHER_ADMISSION);
  }

  @Test
  void aStepOfAnAdmissionTheGateForgotLeavesTheIdsNewAdmissionAlone() {
    WholeGate gate = TestRedis.gate(redis, Duration.ofMillis(200));
    String sku = "plain-" + run;
    gate.register(sku, 5, null, 1);
    String id = "R-" + run;
    List<ReservationLine> lines = List.of(new ReservationLine(sku, 2));
    GateLayout.Partition only = TestRedis.PARTITION;

    AdmissionId old = admit(gate, id, "u-1", sku, 2);
    gate.recorded(id, old, lines);
    assertThat(gate.confirm(id, old, lines)).isEqualTo(Transition.DONE);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !Boolean.TRUE.equals(redis.hasKey(only.intent(id))));
    AdmissionId renewed = admit(gate, id, "u-2", sku, 1);

    // (c) Repeats of the old reservation's steps find another admission.
    assertThat(gate.confirm(id, old, lines)).isEqualTo(Transition.OTHER_ADMISSION);
    assertThat(gate.release(id, old, lines, "CANCELLED")).isEqualTo(Transition.OTHER_ADMISSION);
    assertThat(gate.withdraw(id, old, lines)).isEqualTo(Withdrawal.OTHER_ADMISSION);
    gate.recorded(id, old, lines);
    assertThat(counters(only.counters(sku), "sold")).isEqualTo("2");
    assertThat(counters(only.counters(sku), "reserved")).isEqualTo("1");
    assertThat(pending(only, id)).isTrue();

    assertThat(gate.withdraw(id, renewed, lines)).isEqualTo(Withdrawal.WITHDRAWN);
    assertThat(counters(only.counters(sku), "available")).isEqualTo("3");
    assertThat(counters(only.counters(sku), "reserved")).isEqualTo("0");
  }

  private static AdmissionId admit(
      WholeGate gate, String id, String user, String sku, int quantity) {
    AdmissionDecision decision =
        gate.reserve(
            new Admission(
                id, user, List.of(new ReservationLine(sku, quantity)), HOLD, Instant.now()));
    assertThat(decision).isInstanceOf(AdmissionDecision.Admitted.class);
    return ((AdmissionDecision.Admitted) decision).admission();
  }

  /** A user of this run whose reservations of a SKU in {@link #BUCKETS} buckets use {@code b}. */
  private String user(String name, int b) {
    for (int n = 0; ; n++) {
      String user = name + "-" + run + "-" + n;
      if (GateLayout.bucketOf(user, BUCKETS) == b) {
        return user;
      }
    }
  }

  private String counters(String key, String field) {
    return String.valueOf(redis.opsForHash().get(key, field));
  }

  private boolean pending(GateLayout.Partition partition, String id) {
    return redis.opsForZSet().score(partition.pending(), partition.intent(id)) != null;
  }
}
