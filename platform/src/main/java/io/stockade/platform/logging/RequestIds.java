package io.stockade.platform.logging;

import io.stockade.platform.web.Identifier;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.MDC;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Gives every request an id: the caller's {@code X-Request-Id} when it is a valid identifier (1 to
 * 64 characters of {@code [A-Za-z0-9._-]}), else a new UUID. It is in the MDC while the request is
 * handled and in the response's {@code X-Request-Id}.
 */
final class RequestIds extends OncePerRequestFilter {

  static final String HEADER = "X-Request-Id";
  private static final Pattern VALID = Pattern.compile(Identifier.PATTERN);

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String given = request.getHeader(HEADER);
    String requestId =
        given != null && VALID.matcher(given).matches() ? given : UUID.randomUUID().toString();
    MDC.put(LoggingContext.REQUEST_ID, requestId);
    response.setHeader(HEADER, requestId);
    try {
      chain.doFilter(request, response);
    } finally {
      LoggingContext.clear();
    }
  }
}
