package io.stockade.platform.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpHeaders;
import org.springframework.web.cors.CorsConfiguration;
import org.springframework.web.cors.CorsConfigurationSource;
import org.springframework.web.cors.CorsUtils;
import org.springframework.web.filter.CorsFilter;

/**
 * Spring's CORS filter in the security chain, whose refusal of an origin not allowed is the API's
 * 403 {@code forbidden} problem rather than a bare text: a request or preflight from such an origin
 * goes no further and changes nothing. A preflight from an allowed origin is answered here, without
 * a token; the request that follows goes on through the chain and needs its role as any other.
 */
final class CrossOriginFilter extends CorsFilter {

  private final CorsConfigurationSource origins;
  private final SecurityProblems problems;

  CrossOriginFilter(CorsConfigurationSource origins, SecurityProblems problems) {
    super(origins);
    this.origins = origins;
    this.problems = problems;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (CorsUtils.isCorsRequest(request)) {
      CorsConfiguration allowed = origins.getCorsConfiguration(request);
      String origin = request.getHeader(HttpHeaders.ORIGIN);
      if (allowed != null && allowed.checkOrigin(origin) == null) {
        problems.forbiddenOrigin(request, response, origin);
        return;
      }
    }
    super.doFilterInternal(request, response, chain);
  }
}
