package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.localinfra.EmbeddedRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The draw decides a batch in one call with reserve.lua's code, each reservation as reserve.lua
 * alone decides it, and asks Redis the types of the keys the batch shares and its clock once per
 * call, not once per reservation. On a Redis of its own, so that its command counts are this test's
 * alone.
 */
class RedisAdmissionGateDrawTest {

  private static final EmbeddedRedis REDIS =
      EmbeddedRedis.start(
          Path.of(System.getProperty("java.io.tmpdir"), "draw-gate-redis-" + UUID.randomUUID()));

  private final StringRedisTemplate redis =
      TestRedis.template("127.0.0.1", REDIS.port(), TestRedis.TIMEOUT);
  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @AfterAll
  static void stop() {
    REDIS.stop();
  }

  @Test
  void decidesABatchAsReserveDecidesEachAndAsksTypesAndTimeOncePerCall() {
    WholeGate gate = TestRedis.gate(redis, Duration.ofHours(1));
    String drawn = "drawn-" + run;
    String reserved = "reserved-" + run;
    gate.register(drawn, 12, 1, 1);
    gate.register(reserved, 12, 1, 1);
    int count = 40;
    List<Admission> draw = new ArrayList<>();
    List<AdmissionDecision> alone = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      // Ten users take a unit each, come back twice and are refused by the limit of 1; then new
      // users take the last two units and the rest are refused for stock.
      String user = i < 30 ? "u-" + i % 10 : "u-" + i;
      draw.add(admission("d-" + run + "-" + i, user, drawn));
      alone.add(gate.reserve(admission("r-" + run + "-" + i, user, reserved)));
    }
    long typesBefore = calls("type");
    long timesBefore = calls("time");

    List<AdmissionDecision> decisions = gate.draw(draw);

    long types = calls("type") - typesBefore;
    long times = calls("time") - timesBefore;
    assertThat(decisions).hasSize(count);
    assertThat(decisions.stream().map(RedisAdmissionGateDrawTest::kind).distinct())
        .containsExactly("Admitted", "LimitExceeded", "Insufficient");
    // Decided in the batch as reserve.lua decides each alone.
    assertThat(decisions.stream().map(RedisAdmissionGateDrawTest::kind).toList())
        .isEqualTo(alone.stream().map(RedisAdmissionGateDrawTest::kind).toList());
    // Each reservation's own intent, plus the partition's and the SKU's shared keys once; without
    // the memo, seven types a reservation (280).
    assertThat(types).isLessThanOrEqualTo(count + 6);
    assertThat(times).isLessThanOrEqualTo(1);
  }

  private static Admission admission(String reservationId, String user, String sku) {
    return new Admission(
        reservationId,
        user,
        List.of(new ReservationLine(sku, 1)),
        Duration.ofMinutes(15),
        Instant.now());
  }

  private static String kind(AdmissionDecision decision) {
    return decision.getClass().getSimpleName();
  }

  /** How many times Redis has run {@code command}, scripts' calls included. */
  private long calls(String command) {
    Properties stats =
        redis.execute(
            (RedisCallback<Properties>)
                connection -> connection.serverCommands().info("commandstats"));
    String line = stats.getProperty("cmdstat_" + command);
    if (line == null) {
      return 0;
    }
    return Long.parseLong(line.replaceAll("^calls=(\\d+),.*$", "$1"));
  }
}
