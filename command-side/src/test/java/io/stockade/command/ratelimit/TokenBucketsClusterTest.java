package io.stockade.command.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import io.stockade.command.admission.redis.TestRedis;
import io.stockade.command.ratelimit.RateLimitProperties.Limit;
import io.stockade.command.ratelimit.TokenBuckets.Bucket;
import io.stockade.command.ratelimit.TokenBuckets.Outcome;
import io.stockade.command.ratelimit.TokenBuckets.Short;
import io.stockade.command.ratelimit.TokenBuckets.Taken;
import io.stockade.localinfra.EmbeddedRedisCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * ratelimit.lua on a Redis Cluster, where a reservation's two buckets lie in different slots: the
 * client's is taken first, then the user's, so a user's token is never spent on a request the
 * client's limit refused.
 */
class TokenBucketsClusterTest {

  /** Slow enough that no token comes back while a test runs: 1,000 s per token. */
  private static final double SLOW = 0.001;

  private static EmbeddedRedisCluster cluster;
  private static StringRedisTemplate redis;

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final String user = RateLimitKeys.user("u-" + run);
  private final String client = RateLimitKeys.client("c-" + run);

  @BeforeAll
  static void startCluster() {
    cluster =
        EmbeddedRedisCluster.start(Path.of("target", "ratelimit-cluster-" + UUID.randomUUID()), 3);
    redis = TestRedis.clusterTemplate(cluster.nodes(), Duration.ofSeconds(5));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void anEmptyClientBucketSpendsNoTokenOfTheUser() {
    TokenBuckets buckets = new TokenBuckets(redis);
    assertThat(SlotHash.getSlot(user)).isNotEqualTo(SlotHash.getSlot(client));
    assertThat(buckets.take(List.of(bucket(client, 1)))).isEqualTo(new Taken());

    Outcome outcome = buckets.take(List.of(bucket(user, 10), bucket(client, 1)));

    assertThat(outcome).isInstanceOf(Short.class);
    assertThat(((Short) outcome).index()).isEqualTo(1);
    assertThat(redis.hasKey(user)).as("the user's bucket untouched").isFalse();
  }

  @Test
  void anEmptyUserBucketIsReportedAfterTheClientsTokenWasTaken() {
    TokenBuckets buckets = new TokenBuckets(redis);
    assertThat(buckets.take(List.of(bucket(user, 1), bucket(client, 5)))).isEqualTo(new Taken());

    Outcome outcome = buckets.take(List.of(bucket(user, 1), bucket(client, 5)));

    assertThat(outcome).isInstanceOf(Short.class);
    assertThat(((Short) outcome).index()).isZero();
    assertThat(Long.parseLong(String.valueOf(redis.opsForHash().get(client, "tokens"))))
        .as("two of the client's five tokens taken")
        .isBetween(3_000_000L, 3_999_999L);
  }

  private static Bucket bucket(String key, long capacity) {
    return new Bucket(key, new Limit(capacity, SLOW));
  }
}
