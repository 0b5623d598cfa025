package io.stockade.client;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A service's answer that is an RFC 9457 problem ({@code application/problem+json}): its {@code
 * type}, {@code title}, {@code status}, {@code detail}, its code (the type's last segment) and the
 * extra members that carry the outcome's facts ({@code skuId}, {@code lineIndex}, {@code
 * reservationStatus}...). Thrown once the client has stopped retrying: a 503 or 429 is thrown only
 * when its retries are spent or it came without a {@code Retry-After} the client may wait for.
 */
public class StockadeProblemException extends RuntimeException {

  private final String type;
  private final String title;
  private final int status;
  private final String detail;
  private final String code;
  private final Map<String, Object> extensions;
  private final Duration retryAfter;

  public StockadeProblemException(
      String type,
      String title,
      int status,
      String detail,
      Map<String, Object> extensions,
      Duration retryAfter) {
    super(status + " " + codeOf(type) + ": " + (detail != null ? detail : title));
    this.type = type;
    this.title = title;
    this.status = status;
    this.detail = detail;
    this.code = codeOf(type);
    this.extensions = Map.copyOf(extensions);
    this.retryAfter = retryAfter;
  }

  private static String codeOf(String type) {
    if (type == null) {
      return null;
    }
    int slash = type.lastIndexOf('/');
    return slash < 0 ? type : type.substring(slash + 1);
  }

  /** {@code https://stockade.io/problems/<code>}. */
  public String type() {
    return type;
  }

  public String title() {
    return title;
  }

  /** The HTTP status. */
  public int status() {
    return status;
  }

  public String detail() {
    return detail;
  }

  /**
   * The code as written ({@code insufficient-stock}), also for a code {@link ProblemCode} lacks.
   */
  public String code() {
    return code;
  }

  /** The code, {@link ProblemCode#OTHER} for one this client does not know. */
  public ProblemCode problemCode() {
    return ProblemCode.of(code);
  }

  /** Whether this is the problem of that code. */
  public boolean is(ProblemCode expected) {
    return problemCode() == expected;
  }

  /** The members beyond RFC 9457's own, as JSON values (strings, numbers, lists, maps). */
  public Map<String, Object> extensions() {
    return extensions;
  }

  /** One extra member as text ({@code skuId}, {@code reservationStatus}), if present. */
  public Optional<String> extension(String name) {
    return Optional.ofNullable(extensions.get(name)).map(String::valueOf);
  }

  /** The answer's {@code Retry-After}, if it had one. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }
}
