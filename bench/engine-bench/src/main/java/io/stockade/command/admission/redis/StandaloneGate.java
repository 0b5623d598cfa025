package io.stockade.command.admission.redis;

import io.lettuce.core.ClientOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;

/**
 * The real gate ({@link GateOperations}) outside Spring, for the engine benchmark ({@code
 * bench/engines}). The gate's constructor, its sessions and its key names are package-private in
 * command-side, so this adapter lives in the gate's package; it is the bench module's only class
 * here.
 *
 * <p>It is built as the service builds it: one {@link StringRedisTemplate} (one shared Lettuce
 * connection) that rejects commands while disconnected. Like the gate's own tests it runs in the
 * epoch held by Redis's marker ({@code stockade:gate}) and sets the marker to epoch 1 when Redis
 * has none; the service never does that (it rebuilds such a Redis), so give the benchmark a Redis
 * of its own.
 */
public final class StandaloneGate implements AutoCloseable {

  /** Intents of the benchmark's admissions are live reservations: kept until {@link #forget}. */
  private static final GateProperties PROPERTIES =
      new GateProperties(
          Duration.ofDays(1),
          Duration.ofMillis(500),
          Duration.ofSeconds(60),
          Duration.ofSeconds(60),
          null,
          null,
          1_000_000);

  /** A standalone Redis's layout: one partition. */
  private static final GateLayout LAYOUT = new GateLayout(1, null);

  private static final GateLayout.Partition PARTITION = LAYOUT.partition(0);

  private final LettuceConnectionFactory factory;
  private final StringRedisTemplate redis;
  private final GateOperations gate;

  /** Connects to Redis; {@code timeout} bounds every command, as spring.data.redis.timeout does. */
  public StandaloneGate(String host, int port, Duration timeout) {
    factory =
        new LettuceConnectionFactory(
            new RedisStandaloneConfiguration(host, port),
            LettuceClientConfiguration.builder()
                .commandTimeout(timeout)
                .clientOptions(
                    GateConfiguration.rejectWhileDisconnected(ClientOptions.builder()).build())
                .build());
    factory.afterPropertiesSet();
    factory.start();
    redis = new StringRedisTemplate(factory);
    gate = GateOperations.wire(new AdoptingSessions(redis), LAYOUT, PROPERTIES);
  }

  public GateOperations gate() {
    return gate;
  }

  /** A SKU's counters hash as the gate keeps it: available, reserved, sold, limit. */
  public Map<Object, Object> counters(String skuId) {
    return redis.opsForHash().entries(LAYOUT.counters(skuId));
  }

  /**
   * Takes every intent whose reservation id begins with {@code prefix} off the gate's pending set
   * and unlinks the keys of those reservations and of the SKUs whose ids begin with it.
   *
   * @return the number of keys unlinked
   */
  public long forget(String prefix) {
    List<String> batch = new ArrayList<>();
    try (Cursor<ZSetOperations.TypedTuple<String>> pending =
        redis.opsForZSet().scan(PARTITION.pending(), matching(PARTITION.intent(prefix)))) {
      while (pending.hasNext()) {
        batch.add(pending.next().getValue());
        if (batch.size() == 1000 || !pending.hasNext()) {
          redis.opsForZSet().remove(PARTITION.pending(), batch.toArray());
          batch.clear();
        }
      }
    }
    long unlinked = 0;
    for (String key : List.of(PARTITION.intent(prefix), PARTITION.counters(prefix))) {
      try (Cursor<String> keys = redis.scan(matching(key))) {
        while (keys.hasNext()) {
          batch.add(keys.next());
          if (batch.size() == 1000 || !keys.hasNext()) {
            unlinked += redis.unlink(batch);
            batch.clear();
          }
        }
      }
    }
    return unlinked;
  }

  @Override
  public void close() {
    factory.destroy();
  }

  /** Keys beginning like {@code key}: every id that begins with it. */
  private static ScanOptions matching(String key) {
    return ScanOptions.scanOptions().match(key + "*").count(1000).build();
  }

  /** Sessions with no event store behind them: they adopt Redis's epoch, setting 1 when none. */
  private static final class AdoptingSessions implements GateSessions {

    private final StringRedisTemplate redis;
    private volatile GateSession session;

    AdoptingSessions(StringRedisTemplate redis) {
      this.redis = redis;
    }

    @Override
    public GateSession current() {
      GateSession current = session;
      if (current == null) {
        redis.opsForHash().putIfAbsent(PARTITION.marker(), "epoch", "1");
        long epoch =
            Long.parseLong(String.valueOf(redis.opsForHash().get(PARTITION.marker(), "epoch")));
        current = new GateSession(redis, epoch);
        session = current;
      }
      return current;
    }

    @Override
    public void lost(GateSession lost) {
      session = null;
    }
  }
}
