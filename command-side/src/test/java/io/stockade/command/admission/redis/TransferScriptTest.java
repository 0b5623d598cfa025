package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * transfer.lua against a real Redis (the suite's: the bundled 6.2 unless told otherwise), step by
 * step and out of order: a move's units arrive once, whoever runs its steps and however late, and
 * the moves left are told by Redis's clock.
 */
class TransferScriptTest {

  private static final RedisScript<List<Object>> TRANSFER = GateScripts.load("transfer");
  private static final GateLayout.Partition PARTITION = TestRedis.PARTITION;

  private final StringRedisTemplate redis = TestRedis.shared();
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final String sku = "move-" + run;
  // Two buckets of the SKU: in one partition here, as the script does not mind.
  private final String source = PARTITION.counters(sku) + ":source";
  private final String target = PARTITION.counters(sku) + ":target";

  @BeforeEach
  void twoBucketsOfTen() {
    redis.opsForHash().put(source, "available", "10");
    redis.opsForHash().put(target, "available", "10");
  }

  @Test
  void aMoveArrivesOnceThenIsGoneForEveryLaterStep() {
    String id = expect(5);
    String member = out(id, 5);

    assertThat(in(id, 5)).isEqualTo(1L);
    assertThat(in(id, 5)).as("applied before").isEqualTo(2L);
    assertThat(call("DONE", outKeys(), member)).containsExactly(1L);
    assertThat(call("FORGET", List.of(PARTITION.transfersIn()), id)).containsExactly(1L);
    assertThat(in(id, 5)).as("replayed after the move was settled: gone").isEqualTo(3L);
    assertThat(call("DONE", outKeys(), member)).containsExactly(2L);

    assertThat(available(target)).isEqualTo(15);
    assertThat(available(source)).isEqualTo(5);
    assertThat(redis.opsForHash().get(source, "outgoing")).isEqualTo("0");
    assertThat(redis.opsForHash().hasKey(PARTITION.transfersIn(), id)).isFalse();
  }

  @Test
  void anOutRepeatedWhileTheMoveIsPendingTakesOnce() {
    String id = expect(4);
    String member = out(id, 4);

    assertThat(out(id, 4)).isEqualTo(member);

    assertThat(available(source)).isEqualTo(6);
    assertThat(redis.opsForHash().get(source, "outgoing")).isEqualTo("4");
  }

  @Test
  void anOutRepeatedAfterTheMoveWasDoneGivesItsUnitsBack() {
    String id = expect(5);
    String member = out(id, 5);
    assertThat(in(id, 5)).isEqualTo(1L);
    assertThat(call("DONE", outKeys(), member)).containsExactly(1L);
    assertThat(call("FORGET", List.of(PARTITION.transfersIn()), id)).containsExactly(1L);
    String repeated = out(id, 5);

    assertThat(in(id, 5)).isEqualTo(3L);
    assertThat(call("BACK", outKeys(), repeated)).containsExactly(1L);
    assertThat(call("BACK", outKeys(), repeated)).containsExactly(2L);

    assertThat(available(source)).isEqualTo(5);
    assertThat(redis.opsForHash().get(source, "outgoing")).isEqualTo("0");
    assertThat(available(target)).isEqualTo(15);
  }

  @Test
  void aMoveTheTargetNeverExpectedAddsNothing() {
    assertThat(in("999999", 5)).isEqualTo(3L);
    assertThat(in(run, 5)).isEqualTo(3L);

    assertThat(available(target)).isEqualTo(10);
  }

  @Test
  void anExpectedMoveIsNotForgottenAndAnAppliedOneNotCancelled() {
    String id = expect(3);
    assertThat(call("FORGET", List.of(PARTITION.transfersIn()), id)).containsExactly(3L);
    out(id, 3);
    assertThat(in(id, 3)).isEqualTo(1L);
    assertThat(call("CANCEL", List.of(PARTITION.transfersIn()), id)).containsExactly(2L);

    assertThat(in(id, 3)).isEqualTo(2L);
    assertThat(available(target)).isEqualTo(13);
  }

  @Test
  void everyMoveGetsAnIdOfItsOwnFromTheTarget() {
    String first = expect(1);
    String second = expect(1);

    assertThat(first).startsWith(PARTITION.index() + ".");
    assertThat(second).startsWith(PARTITION.index() + ".").isNotEqualTo(first);
    assertThat(redis.opsForHash().get(PARTITION.transfersIn(), second))
        .isEqualTo("EXPECTED " + sku + " 1");
  }

  @Test
  void theMovesLeftAreToldByRedissClock() {
    String member = out(expect(2), 2);
    Double started = redis.opsForZSet().score(PARTITION.transfers(), member);
    List<?> time =
        redis.execute(RedisScript.of("return redis.call('TIME')", List.class), List.of());

    assertThat(started).isNotNull();
    assertThat(Long.parseLong(time.get(0).toString()) * 1000 - started.longValue())
        .as("scored by the server's clock")
        .isBetween(-2_000L, 2_000L);
    assertThat(left(60_000)).doesNotContain(member);
    assertThat(left(0)).contains(member);
  }

  private String expect(long units) {
    List<Object> reply =
        call(
            "EXPECT",
            List.of(target, PARTITION.transfersIn(), PARTITION.transferSequence()),
            sku,
            String.valueOf(units),
            String.valueOf(PARTITION.index()));
    assertThat(reply.get(0)).isEqualTo(1L);
    return reply.get(1).toString();
  }

  private String out(String id, long units) {
    List<Object> reply =
        call("OUT", outKeys(), id, sku, String.valueOf(PARTITION.index()), String.valueOf(units));
    assertThat(reply.get(0)).isEqualTo(1L);
    return reply.get(2).toString();
  }

  private List<String> outKeys() {
    return List.of(source, PARTITION.transfers(), PARTITION.transferIds());
  }

  private long in(String id, long units) {
    return (Long)
        call("IN", List.of(target, PARTITION.transfersIn()), id, sku, String.valueOf(units)).get(0);
  }

  private List<Object> left(long boundMillis) {
    List<Object> reply =
        call("LEFT", List.of(PARTITION.transfers()), String.valueOf(boundMillis), "1000");
    assertThat(reply.get(0)).isEqualTo(1L);
    return reply.subList(1, reply.size());
  }

  private long available(String counters) {
    return Long.parseLong(String.valueOf(redis.opsForHash().get(counters, "available")));
  }

  private List<Object> call(String mode, List<String> keys, String... args) {
    List<String> allKeys = new ArrayList<>(List.of(PARTITION.marker()));
    allKeys.addAll(keys);
    List<String> allArgs = new ArrayList<>(List.of(String.valueOf(TestRedis.epoch(redis)), mode));
    allArgs.addAll(List.of(args));
    return redis.execute(TRANSFER, allKeys, allArgs.toArray());
  }
}
