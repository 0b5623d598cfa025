package io.stockade.command.ratelimit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.command.CommandProblems;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.TokenBucket;
import io.stockade.platform.web.ProblemException;
import java.math.BigDecimal;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

/**
 * Rate limits of the client endpoints: a token bucket per user and one per calling client, in
 * Redis, so that every instance counts alike. Refused requests are answered 429 {@code
 * rate-limited} with {@code Retry-After} and change nothing.
 *
 * <p>On one Redis a reservation's buckets are taken by the gate, in the script call that admits it
 * (reserve.lua runs the same token-bucket code as ratelimit.lua): one round trip instead of two,
 * the refusal the same 429. On a Redis Cluster, where a reservation's buckets and its gate
 * partition lie in different slots, they are taken by a call of their own before the gate.
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

  private static final List<Kind> RESERVING = List.of(Kind.USER, Kind.CLIENT);

  private final TokenBuckets buckets;
  private final RateLimitProperties properties;
  private final boolean inGate;
  private final Counter userRefusals;
  private final Counter clientRefusals;
  private final Counter failedOpen;
  private volatile boolean failing;

  @Autowired
  RateLimits(TokenBuckets buckets, RateLimitProperties properties, MeterRegistry meters) {
    this(buckets, properties, meters, !buckets.clustered());
  }

  /**
   * @param inGate whether a reservation's buckets are taken by the gate's call (one Redis), or by a
   *     call of their own (a cluster)
   */
  RateLimits(
      TokenBuckets buckets, RateLimitProperties properties, MeterRegistry meters, boolean inGate) {
    this.buckets = buckets;
    this.properties = properties;
    this.inGate = inGate;
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
   * Before a reservation meets the gate: a token from the user's bucket and one from the caller's,
   * both or neither. On one Redis they are left to the gate, which takes them in the call that
   * admits the reservation: the returned buckets go with the admission, and {@link
   * Reserving#refused} answers the gate's {@code RateLimited}. On a cluster they are taken now, and
   * none are returned.
   *
   * @param caller the authenticated principal, or null
   * @param userId the reservation's user, already validated as an identifier
   * @throws ProblemException 429 {@code rate-limited} when either bucket is empty (on a cluster)
   */
  public Reserving reserving(Principal caller, String userId) {
    if (!properties.enabled()) {
      return new Reserving(List.of(), userId, null);
    }
    String client = client(caller);
    List<TokenBuckets.Bucket> requested =
        List.of(
            new TokenBuckets.Bucket(RateLimitKeys.user(userId), properties.user()),
            new TokenBuckets.Bucket(RateLimitKeys.client(client), properties.clientLimit(client)));
    if (!inGate) {
      check(requested, RESERVING, userId, client);
      return new Reserving(List.of(), userId, client);
    }
    return new Reserving(requested, userId, client);
  }

  /** A reservation's buckets, left to the gate; and the answer when it finds one short. */
  public final class Reserving {

    private final List<TokenBuckets.Bucket> requested;
    private final String userId;
    private final String client;

    private Reserving(List<TokenBuckets.Bucket> requested, String userId, String client) {
      this.requested = requested;
      this.userId = userId;
      this.client = client;
    }

    /** The buckets the gate takes a token from, user then client; none to take none. */
    public List<TokenBucket> buckets() {
      return requested.stream()
          .map(
              bucket ->
                  new TokenBucket(
                      bucket.key(), bucket.limit().capacity(), TokenBuckets.refill(bucket.limit())))
          .toList();
    }

    /** The 429 of a reservation the gate found short of a token (counted as the limits' own). */
    public ProblemException refused(AdmissionDecision.RateLimited limited) {
      return refusal(requested, RESERVING, limited.bucket(), limited.retryAfter(), userId, client);
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
      throw refusal(requested, kinds, refused.index(), refused.retryAfter(), userId, client);
    }
  }

  /** The 429 of a request whose bucket {@code index} was short, counted. */
  private ProblemException refusal(
      List<TokenBuckets.Bucket> requested,
      List<Kind> kinds,
      int index,
      Duration retryAfter,
      String userId,
      String client) {
    Kind kind = kinds.get(index);
    (kind == Kind.USER ? userRefusals : clientRefusals).increment();
    return rateLimited(
        kind, kind == Kind.USER ? userId : client, requested.get(index).limit(), retryAfter);
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
