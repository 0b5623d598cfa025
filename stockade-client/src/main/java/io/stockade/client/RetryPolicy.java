package io.stockade.client;

import java.time.Duration;

/**
 * How long a call may retry a 503 or a 429: only those two statuses, only when the answer says when
 * to come back ({@code Retry-After}), at most {@code maxAttempts} sends in all, and only while the
 * waits of the call add up to at most {@code maxWait}. A retry sends the same request, body and
 * identifiers included: every command of the API is idempotent by its identifiers, so a retry never
 * applies a command twice.
 *
 * @param maxAttempts sends of one call, the first included (1: never retry)
 * @param maxWait the most a call waits in all, over its retries
 */
public record RetryPolicy(int maxAttempts, Duration maxWait) {

  /** Up to 5 sends, waiting at most 30 s in all. */
  public static final RetryPolicy DEFAULT = new RetryPolicy(5, Duration.ofSeconds(30));

  /** One send, no retry: each 503 and 429 is thrown at once. */
  public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO);

  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
    }
    if (maxWait == null || maxWait.isNegative()) {
      throw new IllegalArgumentException("maxWait must be zero or more: " + maxWait);
    }
  }

  /** Whether a call that has sent {@code attempts} times and waited {@code waited} may wait. */
  boolean allows(int attempts, Duration waited, Duration wait) {
    return attempts < maxAttempts && waited.plus(wait).compareTo(maxWait) <= 0;
  }
}
