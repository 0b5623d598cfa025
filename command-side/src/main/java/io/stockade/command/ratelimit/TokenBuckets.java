package io.stockade.command.ratelimit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * Token buckets in Redis ({@code lua/ratelimit.lua}): one script call takes a token from each of a
 * request's buckets, or from none. It runs by SHA and is sent again when Redis has forgotten it.
 *
 * <p>It goes through the service's own Redis connection (Spring Boot's, with the gate's client
 * options: commands are rejected while disconnected, and wait no longer than {@code
 * spring.data.redis.timeout}), not a gate session: the buckets are not the gate's state, and are
 * counted whatever the gate's epoch.
 */
@Component
class TokenBuckets {

  static final RedisScript<List<Object>> TAKE = script();

  private final StringRedisTemplate redis;
  private final boolean clustered;

  TokenBuckets(StringRedisTemplate redis) {
    this.redis = redis;
    this.clustered =
        redis.getConnectionFactory() instanceof LettuceConnectionFactory factory
            && factory.isClusterAware();
  }

  /** Whether Redis is a cluster: a request's buckets then lie in different slots. */
  boolean clustered() {
    return clustered;
  }

  /** A limit's refill as the script takes it: a plain decimal number. */
  static String refill(RateLimitProperties.Limit limit) {
    return BigDecimal.valueOf(limit.refillPerSecond()).toPlainString();
  }

  /** A bucket of a request: its key and its limit. */
  record Bucket(String key, RateLimitProperties.Limit limit) {}

  /** What the script answered. */
  sealed interface Outcome {}

  /** One token taken from every bucket. */
  record Taken() implements Outcome {}

  /**
   * Nothing taken: bucket {@code index} (0-based, in the caller's order) holds less than one token;
   * every short bucket holds one again after {@code retryAfter}.
   */
  record Short(int index, Duration retryAfter) implements Outcome {}

  /**
   * Takes one token from every bucket, or none.
   *
   * @throws DataAccessException when Redis cannot answer, or refuses the call (a key of the wrong
   *     type)
   */
  Outcome take(List<Bucket> buckets) {
    if (buckets.size() > 1 && clustered) {
      return takeOneByOne(buckets);
    }
    List<String> keys = new ArrayList<>(buckets.size());
    String[] args = new String[buckets.size() * 2];
    for (int i = 0; i < buckets.size(); i++) {
      Bucket bucket = buckets.get(i);
      keys.add(bucket.key());
      args[2 * i] = String.valueOf(bucket.limit().capacity());
      args[2 * i + 1] = refill(bucket.limit());
    }
    List<Object> reply = redis.execute(TAKE, keys, (Object[]) args);
    if (((Number) reply.get(0)).intValue() == 1) {
      return new Taken();
    }
    return new Short(
        ((Number) reply.get(1)).intValue() - 1,
        Duration.ofMillis(((Number) reply.get(2)).longValue()));
  }

  /**
   * On a Redis Cluster a request's buckets lie in different slots, so one script cannot take from
   * all of them: each is taken by a call of its own, the last one first (a reservation's client,
   * then its user). When a bucket is short, the ones taken before it keep their token: a client is
   * charged for a request its user's limit refused, but a user's allowance is never spent on a
   * request the client's limit refused.
   */
  private Outcome takeOneByOne(List<Bucket> buckets) {
    for (int i = buckets.size() - 1; i >= 0; i--) {
      if (take(List.of(buckets.get(i))) instanceof Short shortOne) {
        return new Short(i, shortOne.retryAfter());
      }
    }
    return new Taken();
  }

  /**
   * Reads the script once, as the gate does: a script built on a {@code Resource} would check the
   * file for changes at every call.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static RedisScript<List<Object>> script() {
    try (InputStream in = new ClassPathResource("lua/ratelimit.lua").getInputStream()) {
      return (RedisScript)
          RedisScript.of(new String(in.readAllBytes(), StandardCharsets.UTF_8), List.class);
    } catch (IOException e) {
      throw new UncheckedIOException("Script ratelimit.lua is missing", e);
    }
  }
}
