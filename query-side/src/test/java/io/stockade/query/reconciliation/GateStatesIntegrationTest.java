package io.stockade.query.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.query.reconciliation.GateStates.GateState;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The gate's own state ({@code GET /api/gate}) read from a real Redis of the test's own (the state
 * is that of every marker in Redis), with the markers as the command side's {@code restore.lua}
 * leaves them: open in one epoch, closed for a rebuild ({@code building}), lost, and Redis stopped.
 */
class GateStatesIntegrationTest {

  private static EmbeddedRedis server;
  private static LettuceConnectionFactory connections;
  private static StringRedisTemplate redis;
  private static GateStates states;

  @BeforeAll
  static void startRedis() {
    server =
        EmbeddedRedis.start(
            Path.of(System.getProperty("java.io.tmpdir"), "gate-state-" + UUID.randomUUID()));
    connections =
        new LettuceConnectionFactory(
            new RedisStandaloneConfiguration("127.0.0.1", server.port()),
            LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
    connections.afterPropertiesSet();
    connections.start();
    redis = new StringRedisTemplate(connections);
    states = new GateStates(new GateReader(redis), Clock.systemUTC());
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
    if (!server.running()) {
      server.start();
    }
    redis.execute(
        (RedisCallback<Object>)
            connection -> {
              connection.serverCommands().flushAll();
              return null;
            });
  }

  @Test
  void everyPartitionOpenInOneEpochIsAnOpenGate() {
    open("g0", 7, 2);
    open("g1", 7, 2);

    GateState gate = states.read();

    assertThat(gate.state()).isEqualTo("OPEN");
    assertThat(gate.reason()).isNull();
    assertThat(gate.epoch()).isEqualTo(7);
    assertThat(gate.partitions()).isEqualTo(2);
    assertThat(gate.checkedAt()).isNotNull();
  }

  @Test
  void aPartitionClosedForARebuildIsRebuildingWithTheEpochBeingBuilt() {
    open("g0", 7, 2);
    open("g1", 7, 2);
    assertThat(states.read().state()).isEqualTo("OPEN");

    // restore.lua's BEGIN: the marker replaced by {building = epoch}, partition by partition.
    redis.delete("stockade:{g1}:gate");
    redis.opsForHash().put("stockade:{g1}:gate", "building", "8");

    GateState gate = states.read();
    assertThat(gate.state()).isEqualTo("REBUILDING");
    assertThat(gate.reason()).contains("rebuilding the gate from the event store");
    assertThat(gate.epoch()).isEqualTo(8);

    // Reopened in the new epoch.
    open("g0", 8, 2);
    open("g1", 8, 2);
    gate = states.read();
    assertThat(gate.state()).isEqualTo("OPEN");
    assertThat(gate.epoch()).isEqualTo(8);
  }

  @Test
  void aGateRedisLostIsClosedAndSaysSo() {
    GateState none = states.read();
    assertThat(none.state()).isEqualTo("CLOSED");
    assertThat(none.reason()).startsWith("Redis holds no gate");
    assertThat(none.partitions()).isZero();

    open("g0", 7, 3);
    open("g1", 7, 3);
    open("g2", 7, 3);
    assertThat(states.read().state()).isEqualTo("OPEN");
    // One partition's data lost (a cluster master restarted empty, say): found by name, then
    // looked for again by a scan, still missing.
    redis.delete("stockade:{g2}:gate");

    GateState part = states.read();
    assertThat(part.state()).isEqualTo("CLOSED");
    assertThat(part.reason()).contains("markers are missing or disagree (2 found)");
    assertThat(part.partitions()).isEqualTo(2);
  }

  @Test
  void aPartitionAddedToAnOpenGateIsFoundAgain() {
    open("g0", 7, 1);
    assertThat(states.read().partitions()).isEqualTo(1);

    // Laid out anew in two partitions: the remembered one alone no longer reads as open.
    open("g0", 9, 2);
    open("g1", 9, 2);

    GateState gate = states.read();
    assertThat(gate.state()).isEqualTo("OPEN");
    assertThat(gate.partitions()).isEqualTo(2);
    assertThat(gate.epoch()).isEqualTo(9);
  }

  @Test
  void redisOutOfReachIsAClosedGateNotAnError() {
    open("g0", 7, 1);
    assertThat(states.read().state()).isEqualTo("OPEN");
    server.stop();

    GateState gate = states.read();

    assertThat(gate.state()).isEqualTo("CLOSED");
    assertThat(gate.reason()).startsWith("Redis cannot be reached");
    assertThat(gate.epoch()).isNull();
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
                String.valueOf(epoch),
                "runId",
                "run-" + epoch,
                "partitions",
                String.valueOf(partitions)));
    assertThat(redis.hasKey(key)).isTrue();
  }
}
