package io.stockade.command.ratelimit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.command.CommandProblems;
import io.stockade.platform.web.ProblemException;
import java.math.BigDecimal;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

/**
 * Rate limits of the client endpoints: a token bucket per user and one per calling client, in
 * Redis, so that every instance counts alike. Refused requests are answered 429 {@code
 * rate-limited} with {@code Retry-After} and change nothing.
 *
 * <p>When Redis cannot answer, requests pass (fail open): a reservation then meets the gate, which
 * answers 503 without Redis, and confirmations and releases, which are recorded in the database,
 * keep working through a Redis outage.
 */
@Component
public class RateLimits {

  /** The client of a request without an authenticated principal. */
  public static final String ANONYMOUS = "anonymous";

  private static final Logger log = LoggerFactory.getLogger(RateLimits.class);

  private enum Kind {
    USER,
    CLIENT;

    String code() {
      return name().toLowerCase();
    }
  }

  private final TokenBuckets buckets;
  private final RateLimitProperties properties;
  private final Counter userRefusals;
  private final Counter clientRefusals;
  private final Counter failedOpen;
  private volatile boolean failing;

  RateLimits(TokenBuckets buckets, RateLimitProperties properties, MeterRegistry meters) {
    this.buckets = buckets;
    this.properties = properties;
    this.userRefusals = refusals(meters, Kind.USER);
    this.clientRefusals = refusals(meters, Kind.CLIENT);
    this.failedOpen =
        Counter.builder("stockade.rate-limit.unavailable")
            .description("Requests let through because Redis could not answer the rate limits")
            .register(meters);
  }

  private static Counter refusals(MeterRegistry meters, Kind kind) {
    return Counter.builder("stockade.rate-limit.refusals")
        .description("Requests refused with 429 rate-limited")
        .tag("limit", kind.code())
        .register(meters);
  }

  /**
   * Before a reservation meets the gate: takes a token from the user's bucket and one from the
   * caller's, both or neither.
   *
   * @param caller the authenticated principal, or null
   * @param userId the reservation's user, already validated as an identifier
   * @throws ProblemException 429 {@code rate-limited} when either bucket is empty
   */
  public void reserving(Principal caller, String userId) {
    if (properties.enabled()) {
      String client = client(caller);
      check(
          List.of(
              new TokenBuckets.Bucket(RateLimitKeys.user(userId), properties.user()),
              new TokenBuckets.Bucket(
                  RateLimitKeys.client(client), properties.clientLimit(client))),
          List.of(Kind.USER, Kind.CLIENT),
          userId,
          client);
    }
  }

  /**
   * Before a confirmation or a release: takes a token from the caller's bucket.
   *
   * @param caller the authenticated principal, or null
   * @throws ProblemException 429 {@code rate-limited} when the bucket is empty
   */
  public void ending(Principal caller) {
    if (properties.enabled()) {
      String client = client(caller);
      check(
          List.of(
              new TokenBuckets.Bucket(
                  RateLimitKeys.client(client), properties.clientLimit(client))),
          List.of(Kind.CLIENT),
          null,
          client);
    }
  }

  /** The principal's name; a request without one is the {@code anonymous} client. */
  static String client(Principal caller) {
    String name = caller == null ? null : caller.getName();
    return name == null || name.isEmpty() ? ANONYMOUS : name;
  }

  private void check(
      List<TokenBuckets.Bucket> requested, List<Kind> kinds, String userId, String client) {
    TokenBuckets.Outcome outcome;
    try {
      outcome = buckets.take(requested);
    } catch (DataAccessException e) {
      failedOpen.increment();
      if (!failing) {
        failing = true;
        log.warn(
            "Rate limits not checked, requests let through: Redis cannot answer ({})",
            e.getMessage());
      }
      return;
    }
    if (failing) {
      failing = false;
      log.info("Rate limits checked again");
    }
    if (outcome instanceof TokenBuckets.Short refused) {
      Kind kind = kinds.get(refused.index());
      (kind == Kind.USER ? userRefusals : clientRefusals).increment();
      throw rateLimited(
          kind,
          kind == Kind.USER ? userId : client,
          requested.get(refused.index()).limit(),
          refused.retryAfter());
    }
  }

  private static ProblemException rateLimited(
      Kind kind, String who, RateLimitProperties.Limit limit, Duration retryAfter) {
    long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
    HttpHeaders headers = new HttpHeaders();
    headers.set(HttpHeaders.RETRY_AFTER, String.valueOf(seconds));
    String detail =
        (kind == Kind.USER ? "User " : "Client ")
            + who
            + " sent more requests than its rate limit allows (a burst of "
            + limit.capacity()
            + ", then "
            + BigDecimal.valueOf(limit.refillPerSecond()).stripTrailingZeros().toPlainString()
            + " per second); nothing was changed. Retry after "
            + seconds
            + " s.";
    Map<String, Object> facts =
        kind == Kind.USER
            ? Map.of("limit", kind.code(), "userId", who)
            : Map.of("limit", kind.code());
    return new ProblemException(
        HttpStatus.TOO_MANY_REQUESTS,
        CommandProblems.RATE_LIMITED,
        "Too many requests",
        detail,
        facts,
        HttpHeaders.readOnlyHttpHeaders(headers));
  }
}
