package io.stockade.command.admission.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.localinfra.EmbeddedRedisCluster;
import io.stockade.localinfra.LocalInfrastructure;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The Redis the gate's tests run against, chosen as the whole suite chooses it: the one named by
 * {@code SPRING_DATA_REDIS_HOST}/{@code _PORT}, else one on 127.0.0.1:6379 (when the build allows
 * probing), else an embedded redis-server started once for this JVM. Public for the tests of other
 * scripts on the same Redis (the rate limits').
 */
public final class TestRedis {

  public static final Duration TIMEOUT = Duration.ofSeconds(5);

  /** The layout of a service on a standalone Redis: one partition. */
  public static final GateLayout LAYOUT = new GateLayout(1, null);

  /** Its one partition. */
  public static final GateLayout.Partition PARTITION = LAYOUT.partition(0);

  /**
   * A layout of two partitions, for tests that compare a partition's shared keys (its pending list,
   * its decision stream, its sequence) before and after a call. The Spring contexts that earlier
   * test classes left running in the JVM sweep the partitions of their layouts (1 or 16 partitions)
   * on the suite's Redis at any moment (the decision drain runs only in contexts with a Redis of
   * their own); this layout's second partition is none of theirs (its tag's slot lies in the upper
   * half, where no tag {@code g1...} of theirs does).
   */
  public static final GateLayout QUIET_LAYOUT = new GateLayout(2, null);

  /** The partition of {@link #QUIET_LAYOUT} that no running service touches. */
  public static final GateLayout.Partition QUIET = QUIET_LAYOUT.partition(1);

  private static StringRedisTemplate shared;

  private TestRedis() {}

  /** A template on the suite's Redis, shared by every test of this JVM. */
  public static synchronized StringRedisTemplate shared() {
    if (shared == null) {
      String host = System.getenv("SPRING_DATA_REDIS_HOST");
      int port = Integer.parseInt(System.getenv().getOrDefault("SPRING_DATA_REDIS_PORT", "6379"));
      if (host == null) {
        host = "127.0.0.1";
        boolean probe = Boolean.getBoolean("stockade.local-infra.probe-default-ports");
        if (!probe || !LocalInfrastructure.answers(host, port)) {
          Path dir =
              Path.of(System.getProperty("stockade.local-infra.data-dir", "target/local-infra"));
          EmbeddedRedis redis = EmbeddedRedis.start(dir.resolve("gate-test-redis"));
          Runtime.getRuntime().addShutdownHook(new Thread(redis::stop));
          port = redis.port();
        }
      }
      shared = template(host, port, TIMEOUT);
    }
    return shared;
  }

  /** A template of its own on any Redis, with the given command timeout. */
  public static StringRedisTemplate template(String host, int port, Duration timeout) {
    LettuceConnectionFactory factory =
        new LettuceConnectionFactory(
            new RedisStandaloneConfiguration(host, port),
            LettuceClientConfiguration.builder()
                .commandTimeout(timeout)
                .clientOptions(
                    GateConfiguration.rejectWhileDisconnected(ClientOptions.builder()).build())
                .build());
    factory.afterPropertiesSet();
    factory.start();
    return new StringRedisTemplate(factory);
  }

  /** A template on a Redis Cluster ({@code host:port,...}), with the given command timeout. */
  public static StringRedisTemplate clusterTemplate(String nodes, Duration timeout) {
    RedisClusterConfiguration cluster = new RedisClusterConfiguration(List.of(nodes.split(",")));
    LettuceConnectionFactory factory =
        new LettuceConnectionFactory(
            cluster,
            LettuceClientConfiguration.builder()
                .commandTimeout(timeout)
                .clientOptions(
                    GateConfiguration.rejectWhileDisconnected(ClusterClientOptions.builder())
                        .build())
                .build());
    factory.afterPropertiesSet();
    factory.start();
    return new StringRedisTemplate(factory);
  }

  /**
   * One SKU id per master of the cluster, in the order of its ports, each {@code prefix-<n>}: on
   * different masters, so in partitions of their own.
   */
  static List<String> skusOnEveryMaster(
      EmbeddedRedisCluster cluster, GateLayout layout, String prefix) {
    List<String> skus = new ArrayList<>();
    for (int port : cluster.ports()) {
      for (int n = 0; ; n++) {
        String sku = prefix + "-" + n;
        if (cluster.portOfSlot(layout.of(sku).slot()) == port) {
          skus.add(sku);
          break;
        }
      }
    }
    return skus;
  }

  /** The real gate over a template, keeping finished intents for {@code retention}. */
  public static WholeGate gate(StringRedisTemplate redis, Duration retention) {
    return gate(redis, LAYOUT, retention);
  }

  /** The real gate in a layout of its own. */
  public static WholeGate gate(StringRedisTemplate redis, GateLayout layout, Duration retention) {
    return WholeGate.of(
        GateOperations.wire(new AdoptingSessions(redis, layout), layout, properties(retention)));
  }

  /** The real gate whose decision streams hold {@code backlog} entries before refusals drop. */
  public static WholeGate gate(StringRedisTemplate redis, long backlog) {
    GateProperties defaults = properties(Duration.ofDays(1));
    return WholeGate.of(
        GateOperations.wire(
            new AdoptingSessions(redis, LAYOUT),
            LAYOUT,
            new GateProperties(
                defaults.intentRetention(),
                defaults.reopenInterval(),
                defaults.rebuildLease(),
                defaults.openOnStart(),
                defaults.partitions(),
                defaults.placementPattern(),
                backlog)));
  }

  /** The gate's moves between buckets, as an instance of its own runs them. */
  static BucketMoves moves(StringRedisTemplate redis, GateLayout layout) {
    GateScripts scripts = new GateScripts(new AdoptingSessions(redis, layout));
    return new BucketMoves(scripts, layout, new BucketPlacements(scripts, layout));
  }

  static GateProperties properties(Duration retention) {
    return new GateProperties(
        retention,
        Duration.ofMillis(500),
        Duration.ofSeconds(60),
        Duration.ofSeconds(60),
        null,
        null,
        100_000);
  }

  /**
   * The epoch the gate's tests run in: the one in Redis's marker, which is set to 1 when Redis has
   * none. (The service's gate never does that: it rebuilds a Redis without a marker.)
   */
  static long epoch(StringRedisTemplate redis) {
    return epoch(redis, LAYOUT);
  }

  /** {@code prefix} with the shortest suffix that places a SKU in {@link #QUIET}. */
  public static String quietSku(String prefix) {
    for (int attempt = 0; ; attempt++) {
      String sku = prefix + "-" + attempt;
      if (QUIET_LAYOUT.of(sku).equals(QUIET)) {
        return sku;
      }
    }
  }

  /** The epoch of the layout's first partition, which every other partition's marker adopts. */
  static long epoch(StringRedisTemplate redis, GateLayout layout) {
    String first = layout.partition(0).marker();
    redis.opsForHash().putIfAbsent(first, "epoch", "1");
    String epoch = String.valueOf(redis.opsForHash().get(first, "epoch"));
    for (GateLayout.Partition partition : layout.partitions()) {
      redis.opsForHash().put(partition.marker(), "epoch", epoch);
    }
    return Long.parseLong(epoch);
  }

  /** Sessions for the gate's own tests: no event store behind them, they adopt Redis's epoch. */
  static final class AdoptingSessions implements GateSessions {

    private final StringRedisTemplate redis;
    private final GateLayout layout;
    private volatile GateSession session;

    AdoptingSessions(StringRedisTemplate redis, GateLayout layout) {
      this.redis = redis;
      this.layout = layout;
    }

    @Override
    public GateSession current() {
      GateSession current = session;
      if (current == null) {
        current = new GateSession(redis, epoch(redis, layout));
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
