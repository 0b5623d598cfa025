package io.stockade.platform.web;

import java.util.Map;
import java.util.Set;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

/**
 * An outcome the API reports as an RFC 9457 problem: a status, a code (the last segment of the
 * problem's {@code type}), a title, a detail and the facts named by the contract as extra members.
 *
 * <p>The extra members never take a name RFC 9457 defines ({@code type}, {@code title}, {@code
 * status}, {@code detail}, {@code instance}): the body would carry that member twice, and a client
 * reading {@code status} would get whichever came last. Such a problem is refused when it is built.
 *
 * <p>An answer, not a failure: it carries no stack trace, which would cost more than the rest of a
 * refusal on the flash sale's hottest path (a refused reservation) and tell nothing the problem
 * does not.
 */
public class ProblemException extends RuntimeException {

  /** The members of RFC 9457 itself, which no extension may be named. */
  public static final Set<String> STANDARD_MEMBERS =
      Set.of("type", "title", "status", "detail", "instance");

  private final HttpStatus status;
  private final String code;
  private final String title;
  private final Map<String, Object> properties;
  private final HttpHeaders headers;

  public ProblemException(
      HttpStatus status, String code, String title, String detail, Map<String, Object> properties) {
    this(status, code, title, detail, properties, HttpHeaders.EMPTY);
  }

  public ProblemException(
      HttpStatus status,
      String code,
      String title,
      String detail,
      Map<String, Object> properties,
      HttpHeaders headers) {
    super(detail, null, false, false);
    for (String name : properties.keySet()) {
      if (STANDARD_MEMBERS.contains(name)) {
        throw new IllegalArgumentException(
            "Problem "
                + code
                + " has an extension named "
                + name
                + ", a member RFC 9457 defines: name it for what it is (such as reservationStatus)");
      }
    }
    this.status = status;
    this.code = code;
    this.title = title;
    this.properties = Map.copyOf(properties);
    this.headers = headers;
  }

  /** 503 with {@code Retry-After}: the service cannot decide safely now; nothing was changed. */
  public static ProblemException unavailable(String code, String detail, long retryAfterSeconds) {
    HttpHeaders headers = new HttpHeaders();
    headers.set(HttpHeaders.RETRY_AFTER, String.valueOf(retryAfterSeconds));
    return new ProblemException(
        HttpStatus.SERVICE_UNAVAILABLE,
        code,
        "Service unavailable",
        detail,
        Map.of(),
        HttpHeaders.readOnlyHttpHeaders(headers));
  }

  public HttpStatus status() {
    return status;
  }

  public String code() {
    return code;
  }

  public String title() {
    return title;
  }

  public Map<String, Object> properties() {
    return properties;
  }

  public HttpHeaders headers() {
    return headers;
  }
}
