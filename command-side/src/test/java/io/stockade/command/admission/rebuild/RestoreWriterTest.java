package io.stockade.command.admission.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateLayout.Partition;
import io.stockade.command.admission.redis.TestRedis;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A rebuild's writes against a real Redis, several batches in flight at once: every batch is
 * applied in the order it was sent, and a batch that finds the rebuild taken over fails the next
 * send or wait.
 */
class RestoreWriterTest {

  private final StringRedisTemplate redis = TestRedis.shared();
  private final Partition partition =
      new Partition(0, "writer-" + UUID.randomUUID().toString().substring(0, 8));
  private final AtomicInteger renewals = new AtomicInteger();
  private final RebuildLease lease = renewals::incrementAndGet;

  @Test
  void appliesEveryBatchInTheOrderSentThoughSeveralAreInFlight() {
    int keys = 10 * RestoreWriter.MAX_KEYS;
    try (RestoreWriter.Calls calls = new RestoreWriter.Calls(redis)) {
      RestoreWriter writer = new RestoreWriter(redis, partition, 7, lease, calls);
      writer.call("BEGIN", List.of(), List.of());
      // Each key written, cleared a few batches later, then written again: a batch run before
      // one sent earlier would leave the first write, or no key at all.
      for (int i = 0; i < keys; i++) {
        writer.add("HSET", key(i), "round", "first");
      }
      for (int i = 0; i < keys; i++) {
        writer.add("UNLINK", key(i));
      }
      for (int i = 0; i < keys; i++) {
        writer.add("HSET", key(i), "last", String.valueOf(i));
      }
      writer.open("run", new GateLayout(1, null));
    }

    for (int i = 0; i < keys; i += 97) {
      assertThat(redis.opsForHash().entries(key(i))).containsExactly(Map.entry("last", "" + i));
    }
    assertThat(redis.opsForHash().entries(key(keys - 1)))
        .containsExactly(Map.entry("last", String.valueOf(keys - 1)));
    assertThat(redis.opsForHash().get(partition.marker(), "epoch")).isEqualTo("7");
    // A renewal for every batch, as before.
    assertThat(renewals.get()).isGreaterThanOrEqualTo(3 * keys / RestoreWriter.MAX_KEYS);
  }

  @Test
  void aBatchThatFindsTheRebuildTakenOverFailsTheNextSendOrWait() {
    try (RestoreWriter.Calls calls = new RestoreWriter.Calls(redis);
        RestoreWriter.Calls later = new RestoreWriter.Calls(redis)) {
      RestoreWriter writer = new RestoreWriter(redis, partition, 7, lease, calls);
      writer.call("BEGIN", List.of(), List.of());
      new RestoreWriter(redis, partition, 8, lease, later).call("BEGIN", List.of(), List.of());
      for (int i = 0; i < RestoreWriter.MAX_KEYS; i++) {
        writer.add("HSET", key(i), "round", "taken over");
      }
      writer.flush();

      assertThatThrownBy(calls::await).isInstanceOf(RebuildLease.TakenOverException.class);
      assertThatThrownBy(
              () -> {
                for (int i = 0; i <= RestoreWriter.MAX_KEYS; i++) {
                  writer.add("HSET", key(i), "after", "failure");
                }
              })
          .isInstanceOf(RebuildLease.TakenOverException.class);
    }
    assertThat(redis.hasKey(key(0))).isFalse();
    assertThat(redis.opsForHash().get(partition.marker(), "building")).isEqualTo("8");
  }

  private String key(int i) {
    return "stockade:{" + partition.tag() + "}:test:" + i;
  }
}
