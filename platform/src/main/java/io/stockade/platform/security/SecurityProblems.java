package io.stockade.platform.security;

import io.stockade.platform.web.ProblemCodes;
import io.stockade.platform.web.ProblemException;
import io.stockade.platform.web.ProblemResponses;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.web.BearerTokenAuthenticationEntryPoint;
import org.springframework.security.oauth2.server.resource.web.access.BearerTokenAccessDeniedHandler;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * 401 {@code unauthorized} and 403 {@code forbidden} as the API's other problems: the status and
 * {@code WWW-Authenticate} header of RFC 6750 (set by Spring Security's bearer-token handlers),
 * then the body written by the application's exception handlers. A URL that Spring Security's
 * firewall refuses ({@code //}, {@code ;}, an encoded {@code /} or {@code %}, {@code ..}, a
 * backslash, a control character) is a 400 {@code invalid-request} before any of that.
 */
final class SecurityProblems
    implements AuthenticationEntryPoint, AccessDeniedHandler, RequestRejectedHandler {

  private final AuthenticationEntryPoint bearerEntryPoint =
      new BearerTokenAuthenticationEntryPoint();
  private final AccessDeniedHandler bearerAccessDenied = new BearerTokenAccessDeniedHandler();
  private final HandlerExceptionResolver problems;

  SecurityProblems(HandlerExceptionResolver problems) {
    this.problems = problems;
  }

  @Override
  public void commence(
      HttpServletRequest request, HttpServletResponse response, AuthenticationException exception)
      throws IOException, ServletException {
    bearerEntryPoint.commence(request, response, exception);
    String detail =
        exception instanceof InvalidBearerTokenException
            ? "The bearer token was refused: it is malformed, expired, or not signed by a trusted"
                + " key; nothing was changed."
            : "This request needs a bearer token (Authorization: Bearer <JWT>); nothing was"
                + " changed.";
    write(
        request,
        response,
        HttpStatus.UNAUTHORIZED,
        ProblemCodes.UNAUTHORIZED,
        "Unauthorized",
        detail);
  }

  @Override
  public void handle(
      HttpServletRequest request, HttpServletResponse response, AccessDeniedException exception)
      throws IOException, ServletException {
    bearerAccessDenied.handle(request, response, exception);
    write(
        request,
        response,
        HttpStatus.FORBIDDEN,
        ProblemCodes.FORBIDDEN,
        "Forbidden",
        "The token's roles do not allow this request; nothing was changed.");
  }

  @Override
  public void handle(
      HttpServletRequest request, HttpServletResponse response, RequestRejectedException exception)
      throws IOException {
    String reason = String.valueOf(exception.getMessage());
    ProblemResponses.FieldProblem refused =
        reason.contains("header")
            ? new ProblemResponses.FieldProblem(
                "headers", "a header's name or value holds a control or unassigned character")
            : reason.contains("parameter")
                ? new ProblemResponses.FieldProblem(
                    "parameters",
                    "a parameter's name or value holds a control or unassigned character")
                : new ProblemResponses.FieldProblem(
                    "path",
                    "contains what no URL of the API may (such as //, ;, an encoded / or %, ..)");
    ProblemException problem = ProblemResponses.invalidRequest(List.of(refused));
    if (problems.resolveException(request, response, null, problem) == null) {
      response.sendError(HttpStatus.BAD_REQUEST.value());
    }
  }

  /** A browser's request from an origin the service does not allow (see CrossOriginFilter). */
  void forbiddenOrigin(HttpServletRequest request, HttpServletResponse response, String origin)
      throws IOException, ServletException {
    write(
        request,
        response,
        HttpStatus.FORBIDDEN,
        ProblemCodes.FORBIDDEN,
        "Forbidden",
        "Pages of the origin "
            + origin
            + " may not call this service from a browser; nothing was changed.");
  }

  private void write(
      HttpServletRequest request,
      HttpServletResponse response,
      HttpStatus status,
      String code,
      String title,
      String detail)
      throws IOException, ServletException {
    ProblemException problem = new ProblemException(status, code, title, detail, Map.of());
    if (problems.resolveException(request, response, null, problem) == null) {
      response.sendError(status.value());
    }
  }
}
