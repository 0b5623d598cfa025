package io.stockade.client;

import java.net.URI;
import java.time.Duration;

/** Told of each retry before its wait: for a log line or a metric. */
@FunctionalInterface
public interface RetryListener {

  /**
   * @param method the request's method
   * @param uri the request's URI
   * @param attempt the send that was refused (1 for the first)
   * @param status 503 or 429; 0 for a send that got no answer
   * @param code the problem's code ({@code gate-unavailable}, {@code rate-limited}...), or null
   *     (always for a send that got no answer)
   * @param wait the wait before the next send: the answer's {@code Retry-After}, or the policy's
   *     wait after a send without an answer
   */
  void retrying(String method, URI uri, int attempt, int status, String code, Duration wait);

  /** Does nothing. */
  RetryListener NONE = (method, uri, attempt, status, code, wait) -> {};
}
