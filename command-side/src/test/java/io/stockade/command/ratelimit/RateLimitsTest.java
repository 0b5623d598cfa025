package io.stockade.command.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.TokenBucket;
import io.stockade.command.admission.redis.TestRedis;
import io.stockade.command.ratelimit.RateLimitProperties.Limit;
import io.stockade.platform.web.ProblemException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

/**
 * The limits as the endpoints use them: which buckets, the 429 problem, and Redis failing; taken by
 * their own call (as on a cluster), or left to the gate's (as on one Redis).
 */
class RateLimitsTest {

  private static final Limit SLOW = new Limit(1, 0.001);
  private static final Limit PLENTY = new Limit(1_000_000, 1_000_000);

  private final StringRedisTemplate redis = TestRedis.shared();
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final Principal caller = () -> "c-" + run;
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @Test
  void aUserOverItsLimitIsRefusedWithRetryAfterAndTheLimitNamed() {
    RateLimits limits = limits(redis, true, SLOW, PLENTY);
    limits.reserving(caller, "u-" + run);

    ProblemException refused =
        catchThrowableOfType(ProblemException.class, () -> limits.reserving(caller, "u-" + run));

    assertThat(refused.status()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
    assertThat(refused.code()).isEqualTo("rate-limited");
    assertThat(refused.properties()).isEqualTo(Map.of("limit", "user", "userId", "u-" + run));
    // 1,000 s until the next token, in whole seconds.
    assertThat(refused.headers().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1000");
    assertThat(meters.counter("stockade.rate-limit.refusals", "limit", "user").count())
        .isEqualTo(1);
    assertThatCode(() -> limits.reserving(caller, "other-" + run)).doesNotThrowAnyException();
  }

  @Test
  void aClientOverItsLimitIsRefusedForEveryUserAndForEndings() {
    RateLimits limits = limits(redis, true, PLENTY, new Limit(2, 0.001));
    limits.reserving(caller, "u-1-" + run);
    limits.ending(caller);

    ProblemException reserving =
        catchThrowableOfType(ProblemException.class, () -> limits.reserving(caller, "u-2-" + run));
    ProblemException ending =
        catchThrowableOfType(ProblemException.class, () -> limits.ending(caller));

    assertThat(reserving.properties()).isEqualTo(Map.of("limit", "client"));
    assertThat(ending.properties()).isEqualTo(Map.of("limit", "client"));
    assertThat(ending.headers().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1000");
    assertThat(redis.hasKey(RateLimitKeys.user("u-2-" + run))).isFalse();
  }

  @Test
  void retryAfterIsRoundedUpToWholeSecondsAndIsAtLeastOne() {
    Principal other = () -> "d-" + run;
    RateLimits limits = limits(redis, true, PLENTY, new Limit(1, 0.4));
    emptyUntilAMinuteFromNow(RateLimitKeys.client("d-" + run));

    // A whole token at 0.4 per second: 2.5 s.
    assertThat(retryAfter(() -> limits.ending(other))).isEqualTo("3");

    RateLimits fast = limits(redis, true, PLENTY, new Limit(1, 1000));
    Principal third = () -> "e-" + run;
    emptyUntilAMinuteFromNow(RateLimitKeys.client("e-" + run));
    // A whole token at 1,000 per second: 1 ms.
    assertThat(retryAfter(() -> fast.ending(third))).isEqualTo("1");
  }

  @Test
  void aRequestWithoutPrincipalIsTheAnonymousClient() {
    assertThat(RateLimits.client(null)).isEqualTo("anonymous");
    assertThat(RateLimits.client(() -> null)).isEqualTo("anonymous");
    assertThat(RateLimits.client(() -> "order-service")).isEqualTo("order-service");
  }

  @Test
  void switchedOffNothingIsCountedInRedis() {
    RateLimits limits = limits(redis, false, SLOW, SLOW);

    for (int i = 0; i < 3; i++) {
      limits.reserving(caller, "u-" + run);
      limits.ending(caller);
    }

    assertThat(redis.hasKey(RateLimitKeys.user("u-" + run))).isFalse();
    assertThat(redis.hasKey(RateLimitKeys.client("c-" + run))).isFalse();
  }

  @Test
  void requestsPassWhenRedisIsNotThere() throws IOException {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    RateLimits limits =
        limits(TestRedis.template("127.0.0.1", port, Duration.ofMillis(300)), true, SLOW, SLOW);

    assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () -> {
          limits.reserving(caller, "u-" + run);
          limits.reserving(caller, "u-" + run);
          limits.ending(caller);
        });
    assertThat(meters.counter("stockade.rate-limit.unavailable").count()).isEqualTo(3);
  }

  @Test
  void requestsPassWhenRedisDoesNotAnswerInTime() throws IOException {
    try (ServerSocket silent = new ServerSocket(0)) {
      List<Socket> accepted = new ArrayList<>();
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    accepted.add(silent.accept());
                  }
                } catch (IOException closed) {
                  // the test is over
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      RateLimits limits =
          limits(
              TestRedis.template("127.0.0.1", silent.getLocalPort(), Duration.ofMillis(300)),
              true,
              SLOW,
              SLOW);

      assertTimeoutPreemptively(
          Duration.ofSeconds(20),
          () -> {
            limits.reserving(caller, "u-" + run);
            limits.reserving(caller, "u-" + run);
          });
      assertThat(meters.counter("stockade.rate-limit.unavailable").count()).isEqualTo(2);
    }
  }

  @Test
  void onOneRedisAReservationsBucketsAreLeftToTheGateAndNothingIsTakenYet() {
    RateLimits limits = new RateLimits(new TokenBuckets(redis), properties(true), meters);

    RateLimits.Reserving reserving = limits.reserving(caller, "u-" + run);

    assertThat(reserving.buckets())
        .containsExactly(
            new TokenBucket(RateLimitKeys.user("u-" + run), 1, "0.001"),
            new TokenBucket(RateLimitKeys.client("c-" + run), 1000000, "1000000.0"));
    assertThat(redis.hasKey(RateLimitKeys.user("u-" + run))).isFalse();
    assertThat(redis.hasKey(RateLimitKeys.client("c-" + run))).isFalse();
    assertThat(
            new RateLimits(new TokenBuckets(redis), properties(false), meters)
                .reserving(caller, "u-" + run)
                .buckets())
        .isEmpty();
  }

  @Test
  void theGatesRefusalIsAnsweredAndCountedAsTheLimitsOwn() {
    RateLimits limits = new RateLimits(new TokenBuckets(redis), properties(true), meters);
    RateLimits.Reserving reserving = limits.reserving(caller, "u-" + run);

    ProblemException user =
        reserving.refused(new AdmissionDecision.RateLimited(0, Duration.ofMillis(2_500)));
    ProblemException client =
        reserving.refused(new AdmissionDecision.RateLimited(1, Duration.ofMillis(1)));

    assertThat(user.status()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
    assertThat(user.code()).isEqualTo("rate-limited");
    assertThat(user.properties()).isEqualTo(Map.of("limit", "user", "userId", "u-" + run));
    assertThat(user.headers().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("3");
    assertThat(user.getMessage()).contains("a burst of 1, then 0.001 per second");
    assertThat(client.properties()).isEqualTo(Map.of("limit", "client"));
    assertThat(client.headers().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
    assertThat(meters.counter("stockade.rate-limit.refusals", "limit", "user").count())
        .isEqualTo(1);
    assertThat(meters.counter("stockade.rate-limit.refusals", "limit", "client").count())
        .isEqualTo(1);
  }

  private static RateLimitProperties properties(boolean enabled) {
    return new RateLimitProperties(enabled, SLOW, PLENTY, Map.of());
  }

  /** Limits taken by their own call before the gate, as on a cluster. */
  private RateLimits limits(
      StringRedisTemplate template, boolean enabled, Limit user, Limit client) {
    return new RateLimits(
        new TokenBuckets(template),
        new RateLimitProperties(enabled, user, client, Map.of()),
        meters,
        false);
  }

  /**
   * An empty bucket counted a minute ahead of Redis's clock: no time passes for it during the test,
   * so the wait is that of a whole token.
   */
  private void emptyUntilAMinuteFromNow(String key) {
    long micros = redis.execute((RedisCallback<Long>) c -> c.serverCommands().time()) * 1000;
    redis
        .opsForHash()
        .putAll(key, Map.of("tokens", "0", "at", String.valueOf(micros + 60_000_000)));
    redis.expire(key, Duration.ofMinutes(10));
  }

  private static String retryAfter(Runnable request) {
    ProblemException refused = catchThrowableOfType(ProblemException.class, request::run);
    assertThat(refused).as("refused").isNotNull();
    return refused.headers().getFirst(HttpHeaders.RETRY_AFTER);
  }
}
