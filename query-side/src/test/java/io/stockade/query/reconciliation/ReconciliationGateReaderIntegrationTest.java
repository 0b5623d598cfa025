package io.stockade.query.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.stockade.localinfra.EmbeddedRedis;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The gate as the reconciliation reads it, from a Redis of the test's own (the marker's state is
 * that of every marker in Redis, so the suite's shared Redis, where other runs write, will not do):
 * the markers' states, the partitions found in the keys, counters summed and intent parts merged,
 * and only the gate's keys read.
 */
class ReconciliationGateReaderIntegrationTest {

  private static EmbeddedRedis server;
  private static LettuceConnectionFactory connections;
  private static StringRedisTemplate redis;
  private static GateReader reader;

  @BeforeAll
  static void startRedis() {
    server =
        EmbeddedRedis.start(
            Path.of(System.getProperty("java.io.tmpdir"), "gate-reader-" + UUID.randomUUID()));
    connections =
        new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", server.port()));
    connections.afterPropertiesSet();
    connections.start();
    redis = new StringRedisTemplate(connections);
    reader = new GateReader(redis);
  }

  @AfterAll
  static void stopRedis() {
    if (connections != null) {
      connections.destroy();
    }
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void empty() {
    redis.execute(
        (RedisCallback<Object>)
            connection -> {
              connection.serverCommands().flushAll();
              return null;
            });
  }

  @Test
  void withoutAnyMarkerTheGateIsAbsent() {
    GateReader.Snapshot gate = reader.read();

    assertThat(gate.marker()).isEqualTo("ABSENT");
    assertThat(gate.skus()).isEmpty();
    assertThat(gate.intents()).isEmpty();
    assertThat(gate.pendingAdmissions()).isZero();
  }

  @Test
  void everyPartitionsMarkerOpenInOneEpochIsOpen() {
    open("3.0", 7, 3);
    open("3.1", 7, 3);
    open("3.2", 7, 3);

    assertThat(reader.read().marker()).isEqualTo("OPEN");
  }

  @Test
  void aPartitionWhoseMarkerIsMissingMakesTheGateAbsent() {
    // Three partitions, one of which lost its data (a cluster node restarted empty, say).
    open("3.0", 7, 3);
    open("3.2", 7, 3);

    assertThat(reader.read().marker()).isEqualTo("ABSENT");
  }

  @Test
  void markersOfDifferentEpochsOrLayoutsAreAbsent() {
    open("2.0", 7, 2);
    open("2.1", 8, 2);
    assertThat(reader.read().marker()).isEqualTo("ABSENT");

    open("2.1", 7, 3);
    assertThat(reader.read().marker()).isEqualTo("ABSENT");

    open("2.1", 7, 2);
    assertThat(reader.read().marker()).isEqualTo("OPEN");
    redis.opsForHash().put("stockade:{2.1}:gate", "placement", "^([^.]+)\\.");
    assertThat(reader.read().marker()).isEqualTo("ABSENT");
  }

  @Test
  void anyPartitionBeingRebuiltIsRebuilding() {
    open("3.0", 7, 3);
    open("3.1", 7, 3);
    redis.opsForHash().put("stockade:{3.2}:gate", "building", "8");

    assertThat(reader.read().marker()).isEqualTo("REBUILDING");

    // Every partition being rebuilt: no epoch anywhere.
    redis.delete(List.of("stockade:{3.0}:gate", "stockade:{3.1}:gate"));
    redis.opsForHash().put("stockade:{3.0}:gate", "building", "8");
    assertThat(reader.read().marker()).isEqualTo("REBUILDING");
  }

  @Test
  void aMarkerOfTheWrongTypeDoesNotCount() {
    open("2.0", 7, 2);
    redis.opsForValue().set("stockade:{2.1}:gate", "7");

    assertThat(reader.read().marker()).isEqualTo("ABSENT");
  }

  @Test
  void aSkusCountersInSeveralPartitionsAreSummedAndNothingElseIsCounted() {
    counters("2.0", "sku-1", 4, 1, 0);
    counters("2.1", "sku-1", 5, 0, 2);
    counters("2.1", "sku-2", 3, 0, 0);
    // A SKU's other hashes, other keys of a partition, the old layout, the rate limits.
    redis.opsForHash().put("stockade:{2.0}:sku:sku-1:holders", "u-1", "1");
    redis.opsForHash().put("stockade:{2.1}:sku:sku-1:replenishments", "rep-1", "5");
    redis.opsForValue().set("stockade:{2.0}:gate:sequence", "12");
    redis.opsForHash().putAll("stockade:sku:{sku-1}", counterFields(100, 0, 0));
    redis.opsForHash().putAll("stockade:{2.0}:sku:{sku-3}", counterFields(100, 0, 0));
    redis.opsForHash().putAll("stockade:ratelimit:user:{u-1}", Map.of("tokens", "5", "at", "1"));
    // Counters of the wrong type, or not numbers: skipped, not failing the read.
    redis.opsForValue().set("stockade:{2.0}:sku:sku-4", "7");
    redis.opsForHash().put("stockade:{2.0}:sku:sku-5", "available", "many");

    GateReader.Snapshot gate = reader.read();

    assertThat(gate.skus())
        .containsOnly(
            Map.entry("sku-1", new Numbers(12, 9, 1, 2)),
            Map.entry("sku-2", new Numbers(3, 3, 0, 0)));
  }

  @Test
  void aReservationsPartsAreMergedAndPendingIsCountedInEveryPartition() {
    // Scored by Redis's clock, as reserve.lua scores them, and told by the same clock.
    long now = redisTime();
    // One reservation in two partitions, both parts pending there, one of them for 5 s.
    intent("2.0", "r-1", "RESERVED", "sku-1 2");
    intent("2.1", "r-1", "RESERVED", "sku-2 3 sku-1 1");
    pending("2.0", "r-1", now - 5000);
    pending("2.1", "r-1", now);
    // Halfway through a confirmation; and parts that the gate's rules never make.
    intent("2.0", "r-2", "CONFIRMED", "sku-1 1");
    intent("2.1", "r-2", "RESERVED", "sku-2 1");
    intent("2.0", "r-3", "CONFIRMED", "sku-1 1");
    intent("2.1", "r-3", "RELEASED", "sku-2 1");
    intent("2.1", "r-4", "RELEASED", "sku-2 4");
    // Old layout and wrong type: not read.
    redis.opsForHash().put("stockade:reservation:{r-5}", "state", "RESERVED");
    redis.opsForValue().set("stockade:{2.0}:reservation:r-6", "RESERVED");

    GateReader.Snapshot gate = reader.read();
    long elapsed = redisTime() - now;

    assertThat(gate.pendingAdmissions()).isEqualTo(2);
    Map<String, GateReader.Intent> intents = new HashMap<>();
    gate.intents().forEach(intent -> intents.put(intent.reservationId(), intent));
    assertThat(intents).containsOnlyKeys("r-1", "r-2", "r-3", "r-4");

    GateReader.Intent first = intents.get("r-1");
    assertThat(first.state()).isEqualTo("RESERVED");
    assertThat(first.lines()).containsOnly(Map.entry("sku-1", 3L), Map.entry("sku-2", 3L));
    assertThat(first.parts())
        .extracting(GateReader.Part::tag, GateReader.Part::state, GateReader.Part::lines)
        .containsExactlyInAnyOrder(
            tuple("2.0", "RESERVED", Map.of("sku-1", 2L)),
            tuple("2.1", "RESERVED", Map.of("sku-2", 3L, "sku-1", 1L)));
    Map<String, Long> pendingFor = new HashMap<>();
    first.parts().forEach(part -> pendingFor.put(part.tag(), part.pendingFor()));
    assertThat(pendingFor.get("2.0")).isBetween(5000L, 5000L + elapsed);
    assertThat(pendingFor.get("2.1")).isBetween(0L, elapsed);

    assertThat(intents.get("r-2").state()).isEqualTo("RESERVED");
    assertThat(intents.get("r-2").parts()).hasSize(2);
    assertThat(intents.get("r-3").state()).isEqualTo("CONFIRMED+RELEASED");
    assertThat(intents.get("r-4").state()).isEqualTo("RELEASED");
    assertThat(intents.get("r-4").parts()).hasSize(1);
    assertThat(intents.get("r-4").parts().get(0).pendingFor()).isNull();
  }

  @Test
  void theUnitsAPartialConfirmationSoldAreReadPartByPart() {
    // Confirmed in part over two partitions: the lines stay those reserved, the field confirmed
    // has the units sold of each line (0: given back whole).
    intent("3.0", "r-1", "CONFIRMED", "sku-1 3 sku-2 2");
    redis.opsForHash().put("stockade:{3.0}:reservation:r-1", "confirmed", "sku-1 1 sku-2 0");
    intent("3.1", "r-1", "CONFIRMED", "sku-3 4");
    redis.opsForHash().put("stockade:{3.1}:reservation:r-1", "confirmed", "sku-3 4");
    // Confirmed whole (no field), and one part still to be confirmed.
    intent("3.0", "r-2", "CONFIRMED", "sku-1 2");
    intent("3.0", "r-3", "CONFIRMED", "sku-1 1");
    redis.opsForHash().put("stockade:{3.0}:reservation:r-3", "confirmed", "sku-1 1");
    intent("3.1", "r-3", "RESERVED", "sku-3 2");

    Map<String, GateReader.Intent> intents = new HashMap<>();
    reader.read().intents().forEach(intent -> intents.put(intent.reservationId(), intent));

    GateReader.Intent partial = intents.get("r-1");
    assertThat(partial.state()).isEqualTo("CONFIRMED");
    assertThat(partial.lines())
        .containsOnly(Map.entry("sku-1", 3L), Map.entry("sku-2", 2L), Map.entry("sku-3", 4L));
    assertThat(partial.parts())
        .extracting(GateReader.Part::tag, GateReader.Part::confirmed)
        .containsExactlyInAnyOrder(
            tuple("3.0", Map.of("sku-1", 1L, "sku-2", 0L)), tuple("3.1", Map.of("sku-3", 4L)));
    assertThat(partial.sold()).containsExactly(Map.entry("sku-1", 1L), Map.entry("sku-3", 4L));
    assertThat(intents.get("r-2").parts().get(0).confirmed()).isNull();
    assertThat(intents.get("r-2").sold()).containsExactly(Map.entry("sku-1", 2L));
    assertThat(intents.get("r-3").state()).isEqualTo("RESERVED");
    assertThat(intents.get("r-3").sold())
        .as("only the parts confirmed have sold")
        .containsExactly(Map.entry("sku-1", 1L));
  }

  @Test
  void moreKeysThanOneBatchAreAllRead() {
    for (int i = 0; i < 1200; i++) {
      counters("p" + (i % 3), "sku-" + (i % 400), 1, 0, 0);
    }
    for (int i = 0; i < 700; i++) {
      intent("p" + (i / 350), "r-" + (i % 350), "RESERVED", "sku-" + i + " 1");
    }

    GateReader.Snapshot gate = reader.read();

    assertThat(gate.skus()).hasSize(400);
    assertThat(gate.skus().values()).containsOnly(new Numbers(3, 3, 0, 0));
    assertThat(gate.intents()).hasSize(350);
    assertThat(gate.intents()).allSatisfy(intent -> assertThat(intent.parts()).hasSize(2));
  }

  private static void open(String tag, long epoch, int partitions) {
    String key = "stockade:{" + tag + "}:gate";
    redis.delete(key);
    redis
        .opsForHash()
        .putAll(
            key,
            Map.of(
                "epoch",
                Long.toString(epoch),
                "runId",
                "run-1",
                "partitions",
                Integer.toString(partitions),
                "placement",
                ""));
  }

  private static void counters(String tag, String sku, long available, long reserved, long sold) {
    redis
        .opsForHash()
        .putAll("stockade:{" + tag + "}:sku:" + sku, counterFields(available, reserved, sold));
  }

  private static Map<String, String> counterFields(long available, long reserved, long sold) {
    return Map.of(
        "available",
        Long.toString(available),
        "reserved",
        Long.toString(reserved),
        "sold",
        Long.toString(sold),
        "limit",
        "-1");
  }

  private static void intent(String tag, String reservation, String state, String lines) {
    redis
        .opsForHash()
        .putAll(
            "stockade:{" + tag + "}:reservation:" + reservation,
            Map.of("state", state, "user", "u-1", "lines", lines));
  }

  /** Redis's clock, epoch milliseconds. */
  private static long redisTime() {
    return redis.execute((RedisCallback<Long>) connection -> connection.serverCommands().time());
  }

  private static void pending(String tag, String reservation, long at) {
    redis
        .opsForZSet()
        .add(
            "stockade:{" + tag + "}:gate:pending",
            "stockade:{" + tag + "}:reservation:" + reservation,
            at);
  }
}
