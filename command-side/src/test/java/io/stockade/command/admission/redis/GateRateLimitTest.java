package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.TokenBucket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A reservation's rate limits taken by the gate, in the script call that admits it: a short bucket
 * refuses the reservation before the gate changes anything, every answer but an error or a closed
 * gate takes one token from each bucket, and a reservation takes its tokens once however many calls
 * it needs (parts in several partitions, units gathered from other buckets).
 */
class GateRateLimitTest {

  private static final Duration HOLD = Duration.ofMinutes(15);

  /** Refills so slowly that no token comes back during a test. */
  private static final String SLOW = "0.000001";

  private final StringRedisTemplate redis = TestRedis.shared();
  private final WholeGate gate = TestRedis.gate(redis, Duration.ofHours(24));
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final String bucketKey = "stockade:ratelimit:user:{u-" + run + "}";

  @Test
  void aShortBucketRefusesTheReservationAndTheGateChangesNothing() {
    // In a partition no running service sweeps or drains: the test compares its shared keys.
    WholeGate gate = TestRedis.gate(redis, TestRedis.QUIET_LAYOUT, Duration.ofHours(24));
    String sku = TestRedis.quietSku("rl-" + run);
    gate.register(sku, 5, null, 1);
    TokenBucket one = new TokenBucket(bucketKey, 1, SLOW);
    assertThat(gate.reserve(admission("A-" + run, line(sku, 1), one)))
        .isInstanceOf(AdmissionDecision.Admitted.class);
    List<String> keys =
        List.of(
            bucketKey,
            TestRedis.QUIET_LAYOUT.counters(sku),
            TestRedis.QUIET_LAYOUT.holders(sku),
            TestRedis.QUIET.intent("B-" + run),
            TestRedis.QUIET.sequence(),
            TestRedis.QUIET.pending(),
            TestRedis.QUIET.decisions());
    Map<String, String> before = GateKeyDump.of(redis, keys);

    AdmissionDecision refused = gate.reserve(admission("B-" + run, line(sku, 1), one));

    assertThat(refused).isInstanceOf(AdmissionDecision.RateLimited.class);
    AdmissionDecision.RateLimited limited = (AdmissionDecision.RateLimited) refused;
    assertThat(limited.bucket()).isZero();
    // A whole token at 10^-6 per second: about 10^6 s away.
    assertThat(limited.retryAfter()).isBetween(Duration.ofSeconds(999_000), Duration.ofDays(12));
    assertThat(GateKeyDump.of(redis, keys)).isEqualTo(before);
  }

  @Test
  void theFirstShortBucketIsNamedAndNoneIsTaken() {
    String sku = "rl2-" + run;
    gate.register(sku, 5, null, 1);
    String full = "stockade:ratelimit:client:{c-" + run + "}";
    empty(bucketKey);

    AdmissionDecision refused =
        gate.reserve(
            admission(
                "A-" + run,
                line(sku, 1),
                new TokenBucket(full, 10, SLOW),
                new TokenBucket(bucketKey, 10, SLOW)));

    assertThat(refused).isInstanceOf(AdmissionDecision.RateLimited.class);
    assertThat(((AdmissionDecision.RateLimited) refused).bucket()).isEqualTo(1);
    assertThat(redis.hasKey(full)).as("nothing taken from the bucket with tokens").isFalse();
    assertThat(counter(sku, "available")).isEqualTo("5");
  }

  @Test
  void everyAnswerButAnErrorTakesOneToken() {
    String sku = "rl3-" + run;
    gate.register(sku, 1, null, 1);
    TokenBucket ten = new TokenBucket(bucketKey, 10, SLOW);

    answers(gate, admission("A-" + run, line(sku, 1), ten), AdmissionDecision.Admitted.class, 9);
    answers(gate, admission("A-" + run, line(sku, 1), ten), AdmissionDecision.Duplicate.class, 8);
    answers(gate, admission("A-" + run, line(sku, 2), ten), AdmissionDecision.Reused.class, 7);
    answers(
        gate, admission("B-" + run, line(sku, 1), ten), AdmissionDecision.Insufficient.class, 6);
    answers(
        gate,
        admission("C-" + run, line("unknown-" + run, 1), ten),
        AdmissionDecision.UnknownSku.class,
        5);

    redis.opsForValue().set(TestRedis.PARTITION.intent("D-" + run), "not an intent");
    assertThatThrownBy(() -> gate.reserve(admission("D-" + run, line(sku, 1), ten)))
        .isInstanceOf(GateScriptException.class);
    assertThat(tokens()).as("an error takes none").isEqualTo(5);
  }

  @Test
  void aReservationOverTwoPartitionsTakesItsTokensOnce() {
    GateLayout layout = new GateLayout(16, null);
    WholeGate partitioned = TestRedis.gate(redis, layout, Duration.ofHours(24));
    String first = "p-" + run + "-0";
    String second = first;
    for (int n = 1; layout.of(second).equals(layout.of(first)); n++) {
      second = "p-" + run + "-" + n;
    }
    partitioned.register(first, 5, null, 1);
    partitioned.register(second, 5, null, 1);
    TokenBucket ten = new TokenBucket(bucketKey, 10, SLOW);

    answers(
        partitioned,
        admission("A-" + run, List.of(line(first, 1), line(second, 1)), ten),
        AdmissionDecision.Admitted.class,
        9);

    empty(bucketKey);
    assertThat(
            partitioned.reserve(
                admission("B-" + run, List.of(line(first, 1), line(second, 1)), ten)))
        .isInstanceOf(AdmissionDecision.RateLimited.class);
    assertThat(redis.opsForHash().get(layout.counters(first), "available")).isEqualTo("4");
    assertThat(redis.opsForHash().get(layout.counters(second), "available")).isEqualTo("4");
  }

  @Test
  void aReservationThatGathersUnitsFromOtherBucketsTakesItsTokensOnce() {
    GateLayout layout = new GateLayout(16, null);
    WholeGate partitioned = TestRedis.gate(redis, layout, Duration.ofHours(24));
    String hot = "hot-" + run;
    // One unit in each of three buckets: two units for one user are gathered from the others.
    partitioned.register(hot, 3, null, 3);
    TokenBucket ten = new TokenBucket(bucketKey, 10, SLOW);

    answers(
        partitioned, admission("A-" + run, line(hot, 2), ten), AdmissionDecision.Admitted.class, 9);
    answers(
        partitioned,
        admission("B-" + run, line(hot, 2), ten),
        AdmissionDecision.Insufficient.class,
        8);
  }

  /** The gate answers the admission with {@code answer}, leaving its bucket {@code left} tokens. */
  private void answers(
      WholeGate on, Admission admission, Class<? extends AdmissionDecision> answer, long left) {
    assertThat(on.reserve(admission)).isInstanceOf(answer);
    assertThat(tokens()).isEqualTo(left);
  }

  /** The whole tokens the test's bucket holds (it refills by less than one during a test). */
  private long tokens() {
    return Long.parseLong(String.valueOf(redis.opsForHash().get(bucketKey, "tokens"))) / 1_000_000;
  }

  /** A bucket without a token, counted a minute ahead of Redis's clock. */
  private void empty(String key) {
    Long millis = redis.execute((RedisCallback<Long>) c -> c.serverCommands().time());
    redis
        .opsForHash()
        .putAll(key, Map.of("tokens", "0", "at", String.valueOf(millis * 1000 + 60_000_000)));
    redis.expire(key, Duration.ofMinutes(10));
  }

  private String counter(String sku, String field) {
    return String.valueOf(redis.opsForHash().get(TestRedis.LAYOUT.counters(sku), field));
  }

  private Admission admission(String id, ReservationLine line, TokenBucket... buckets) {
    return admission(id, List.of(line), buckets);
  }

  private Admission admission(String id, List<ReservationLine> lines, TokenBucket... buckets) {
    return new Admission(id, "u-" + run, lines, HOLD, Instant.now(), List.of(buckets));
  }

  private static ReservationLine line(String sku, int quantity) {
    return new ReservationLine(sku, quantity);
  }
}
