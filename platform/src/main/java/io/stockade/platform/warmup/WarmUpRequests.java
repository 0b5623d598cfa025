package io.stockade.platform.warmup;

import java.util.List;
import java.util.Set;

/**
 * Requests a service sends itself before it reports ready, declared as a bean by the service: its
 * hot path, answered by the real stack (Tomcat, the filters, the bearer token, the controller,
 * Redis) so that the JIT has compiled that path before the first real request. Every request must
 * be a refusal that changes nothing a user can see: no event, no stock, no gate counter.
 */
public interface WarmUpRequests {

  /**
   * One request and the statuses that show it changed nothing; any other answer ends the warm-up.
   */
  record Request(String method, String path, String jsonBody, Set<Integer> expectedStatuses) {}

  /** The roles the requests' bearer token needs; none for open endpoints. */
  List<String> roles();

  /** Whether the service can answer them as it will under load (for example its gate is open). */
  default boolean ready() {
    return true;
  }

  /** The {@code n}th request, from 0. */
  Request request(long n);
}
