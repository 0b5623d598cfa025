package io.stockade.command.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.stockade.command.admission.redis.TestRedis;
import io.stockade.command.ratelimit.RateLimitProperties.Limit;
import io.stockade.command.ratelimit.TokenBuckets.Bucket;
import io.stockade.command.ratelimit.TokenBuckets.Outcome;
import io.stockade.command.ratelimit.TokenBuckets.Short;
import io.stockade.command.ratelimit.TokenBuckets.Taken;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/** ratelimit.lua against a real Redis: both buckets or neither, refill by Redis time, expiry. */
class TokenBucketsTest {

  /** Slow enough that no token comes back while a test runs: 1,000 s per token. */
  private static final double SLOW = 0.001;

  private final StringRedisTemplate redis = TestRedis.shared();
  private final TokenBuckets buckets = new TokenBuckets(redis);
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final String user = RateLimitKeys.user("u-" + run);
  private final String client = RateLimitKeys.client("c-" + run);

  @Test
  void takesOneTokenFromEveryBucketUntilOneIsEmpty() {
    List<Bucket> request = List.of(bucket(user, 2, SLOW), bucket(client, 5, SLOW));

    assertThat(buckets.take(request)).isEqualTo(new Taken());
    assertThat(buckets.take(request)).isEqualTo(new Taken());

    // In millionths of a token; the slow refill adds one every millisecond.
    assertThat(tokens(user)).isLessThan(1_000_000);
    assertThat(tokens(client)).isBetween(3_000_000L, 3_999_999L);
    assertThat(buckets.take(request)).isInstanceOf(Short.class);
  }

  @Test
  void anEmptyUserBucketTakesNothingFromTheClientsAndChangesNothing() {
    buckets.take(List.of(bucket(user, 1, SLOW)));
    buckets.take(List.of(bucket(client, 5, SLOW)));
    Map<String, String> before = dump(user, client);

    Outcome outcome = buckets.take(List.of(bucket(user, 1, SLOW), bucket(client, 5, SLOW)));

    assertThat(outcome).isInstanceOf(Short.class);
    assertThat(((Short) outcome).index()).isZero();
    assertThat(dump(user, client)).isEqualTo(before);
  }

  @Test
  void anEmptyClientBucketTakesNothingFromTheUsersAndCreatesNoKey() {
    buckets.take(List.of(bucket(client, 1, SLOW)));

    Outcome outcome = buckets.take(List.of(bucket(user, 10, SLOW), bucket(client, 1, SLOW)));

    assertThat(outcome).isInstanceOf(Short.class);
    assertThat(((Short) outcome).index()).isEqualTo(1);
    assertThat(redis.hasKey(user)).isFalse();
  }

  @Test
  void reportsTheFirstShortBucketAndTheWaitUntilEveryShortOneHasAToken() {
    freeze(user, 0, 60);
    freeze(client, 0, 60);

    Outcome outcome = buckets.take(List.of(bucket(user, 5, 4), bucket(client, 5, 0.5)));

    // The user's bucket has a token again after 250 ms, the client's after 2 s.
    assertThat(outcome).isEqualTo(new Short(0, Duration.ofSeconds(2)));
  }

  @Test
  void aKeyExpiresWhenItsBucketWouldBeFullAgain() {
    Bucket slow = bucket(user, 10, 0.01);

    buckets.take(List.of(slow));
    // One token short of full: 100 s at 0.01 per second; two tokens short: 200 s.
    assertThat(redis.getExpire(user, TimeUnit.MILLISECONDS)).isBetween(1L, 100_000L);
    buckets.take(List.of(slow));
    assertThat(redis.getExpire(user, TimeUnit.MILLISECONDS)).isBetween(100_001L, 200_000L);

    // Full again after a millisecond: the key is gone, and the bucket is full.
    buckets.take(List.of(bucket(client, 1, 1000)));
    await().atMost(Duration.ofSeconds(30)).until(() -> !redis.hasKey(client));
  }

  @Test
  void refillsFromTheTimeInRedisUpToTheCapacity() {
    // Counted empty 10 s ago by Redis's clock: refilled at 1 per second, but no more than 5.
    freeze(user, 0, -10);

    assertThat(buckets.take(List.of(bucket(user, 5, 1)))).isEqualTo(new Taken());

    assertThat(tokens(user)).isEqualTo(4_000_000);
  }

  @Test
  void aBucketCountedAheadOfRedisTimeRefillsNothingUntilThen() {
    // Written by a Redis whose clock ran ahead (before a failover, say): no time has passed since.
    freeze(user, 0, 60);

    assertThat(buckets.take(List.of(bucket(user, 5, 1))))
        .isEqualTo(new Short(0, Duration.ofSeconds(1)));
  }

  @Test
  void anEmptiedBucketAdmitsAgainOnceRefilled() {
    Bucket fast = bucket(user, 1, 1);
    // Two takes in a row until the second finds the bucket empty (within a second of the first).
    Outcome outcome =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  buckets.take(List.of(fast));
                  return buckets.take(List.of(fast));
                },
                Short.class::isInstance);

    assertThat(((Short) outcome).retryAfter())
        .isBetween(Duration.ofMillis(1), Duration.ofSeconds(1));
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> buckets.take(List.of(fast)), Taken.class::isInstance);
  }

  @Test
  void survivesAFlushedScriptCache() {
    buckets.take(List.of(bucket(user, 3, SLOW)));
    redis.execute(
        (RedisConnection connection) -> {
          connection.scriptingCommands().scriptFlush();
          return null;
        });

    assertThat(buckets.take(List.of(bucket(user, 3, SLOW)))).isEqualTo(new Taken());
    assertThat(tokens(user)).isBetween(1_000_000L, 1_999_999L);
  }

  @Test
  void malformedCallsAreRefusedAndWriteNothing() {
    assertThat(error(List.of(user), "0", "1")).contains("ERR_ARGUMENT capacity of bucket 1");
    assertThat(error(List.of(user), "1000000001", "1")).contains("ERR_ARGUMENT capacity");
    assertThat(error(List.of(user), "5", "0")).contains("ERR_ARGUMENT refill of bucket 1");
    assertThat(error(List.of(user), "5", "1e3")).contains("ERR_ARGUMENT refill");
    assertThat(error(List.of(user), "5", "0.0000001")).contains("ERR_ARGUMENT refill");
    assertThat(error(List.of(user, client), "5", "1", "5")).contains("ERR_ARGUMENT expected");
    assertThat(error(List.of(), new String[0])).contains("ERR_ARGUMENT expected");
    assertThat(redis.hasKey(user)).isFalse();
  }

  @Test
  void aKeyOfTheWrongTypeIsAnErrorAndChangesNothing() {
    redis.opsForValue().set(client, "not a bucket");
    Map<String, String> before = dump(user, client);

    assertThatThrownBy(() -> buckets.take(List.of(bucket(user, 5, SLOW), bucket(client, 5, SLOW))))
        .isInstanceOf(DataAccessException.class)
        .hasStackTraceContaining("ERR_TYPE " + client);
    assertThat(dump(user, client)).isEqualTo(before);
  }

  private static Bucket bucket(String key, long capacity, double refillPerSecond) {
    return new Bucket(key, new Limit(capacity, refillPerSecond));
  }

  /** Writes a bucket holding {@code tokens}, counted {@code offsetSeconds} from Redis's now. */
  private void freeze(String key, long tokens, long offsetSeconds) {
    Long millis = redis.execute((RedisCallback<Long>) c -> c.serverCommands().time());
    long nowMicros = millis * 1000;
    redis
        .opsForHash()
        .putAll(
            key,
            Map.of(
                "tokens",
                String.valueOf(tokens * 1_000_000),
                "at",
                String.valueOf(nowMicros + offsetSeconds * 1_000_000)));
    redis.expire(key, Duration.ofMinutes(10));
  }

  private long tokens(String key) {
    return Long.parseLong(String.valueOf(redis.opsForHash().get(key, "tokens")));
  }

  private Map<String, String> dump(String... keys) {
    Map<String, String> values = new TreeMap<>();
    for (String key : keys) {
      values.put(
          key,
          redis.type(key).code()
              + " "
              + (redis.type(key).code().equals("hash")
                  ? new TreeMap<>(redis.opsForHash().entries(key)).toString()
                  : redis.opsForValue().get(key))
              + (redis.getExpire(key) >= 0 ? " (expires)" : ""));
    }
    return values;
  }

  private String error(List<String> keys, String... args) {
    try {
      redis.execute(TokenBuckets.TAKE, keys, (Object[]) args);
    } catch (DataAccessException e) {
      return String.valueOf(e.getMostSpecificCause().getMessage());
    }
    throw new AssertionError("No error for " + keys + " " + List.of(args));
  }
}
