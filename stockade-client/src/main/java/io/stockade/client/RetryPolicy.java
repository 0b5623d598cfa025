package io.stockade.client;

import java.time.Duration;

/**
 * How long a call may retry: a 503 or a 429 that says when to come back ({@code Retry-After}),
 * after that long; and a send that got no answer (the connection refused or lost, no answer within
 * the request timeout), after {@code connectionRetryWait}, doubled at each such retry of the call.
 * At most {@code maxAttempts} sends in all, and only while the waits of the call add up to at most
 * {@code maxWait}. A retry sends the same request, body and identifiers included: every command of
 * the API is idempotent by its identifiers, so a retry never applies a command twice, even when the
 * send that got no answer had been applied.
 *
 * @param maxAttempts sends of one call, the first included (1: never retry)
 * @param maxWait the most a call waits in all, over its retries
 * @param connectionRetryWait the wait after the first send that got no answer
 */
public record RetryPolicy(int maxAttempts, Duration maxWait, Duration connectionRetryWait) {

  /** Up to 5 sends, waiting at most 30 s in all; 1 s after a first send without an answer. */
  public static final RetryPolicy DEFAULT = new RetryPolicy(5, Duration.ofSeconds(30));

  /** One send, no retry: each 503 and 429, and each failed send, is thrown at once. */
  public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO);

  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
    }
    if (maxWait == null || maxWait.isNegative()) {
      throw new IllegalArgumentException("maxWait must be zero or more: " + maxWait);
    }
    if (connectionRetryWait == null || connectionRetryWait.isNegative()) {
      throw new IllegalArgumentException(
          "connectionRetryWait must be zero or more: " + connectionRetryWait);
    }
  }

  /** Waiting 1 s after a first send without an answer. */
  public RetryPolicy(int maxAttempts, Duration maxWait) {
    this(maxAttempts, maxWait, Duration.ofSeconds(1));
  }

  /** Whether a call that has sent {@code attempts} times and waited {@code waited} may wait. */
  boolean allows(int attempts, Duration waited, Duration wait) {
    return attempts < maxAttempts && waited.plus(wait).compareTo(maxWait) <= 0;
  }

  /** The wait after the {@code failures}th send of a call that got no answer (1 for the first). */
  Duration afterFailedSend(int failures) {
    return connectionRetryWait.multipliedBy(1L << Math.min(failures - 1, 20));
  }
}
