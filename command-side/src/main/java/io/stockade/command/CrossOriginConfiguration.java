package io.stockade.command;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.web.cors.CorsConfiguration;
import org.springframework.web.cors.CorsConfigurationSource;
import org.springframework.web.cors.UrlBasedCorsConfigurationSource;

/**
 * Lets the operator's dashboard, served by the query side at another origin, call the command
 * side's {@code /api/...} endpoints from the browser with its bearer token: the origins of {@code
 * stockade.cors.allowed-origins} (a comma-separated list, empty by default: no cross-origin request
 * is allowed, and none is answered with CORS headers). The security chain checks them first (see
 * the platform's {@code SecurityConfiguration}), so that a preflight needs no token; the request
 * that follows needs its role as any other. No cookies are involved, so no credentials are allowed.
 */
@Configuration(proxyBeanMethods = false)
class CrossOriginConfiguration {

  @Bean
  @ConditionalOnExpression("!'${stockade.cors.allowed-origins:}'.trim().isEmpty()")
  CorsConfigurationSource corsConfigurationSource(
      @Value("${stockade.cors.allowed-origins:}") String allowedOrigins) {
    CorsConfiguration cors = new CorsConfiguration();
    cors.setAllowedOrigins(
        Arrays.stream(allowedOrigins.split(","))
            .map(String::trim)
            .filter(origin -> !origin.isEmpty())
            .toList());
    cors.setAllowedMethods(List.of("GET", "POST", "PUT"));
    cors.setAllowedHeaders(List.of(HttpHeaders.AUTHORIZATION, HttpHeaders.CONTENT_TYPE));
    cors.setExposedHeaders(List.of(HttpHeaders.RETRY_AFTER, HttpHeaders.LOCATION));
    cors.setAllowCredentials(false);
    cors.setMaxAge(Duration.ofMinutes(10));
    UrlBasedCorsConfigurationSource source = new UrlBasedCorsConfigurationSource();
    source.registerCorsConfiguration("/api/**", cors);
    return source;
  }
}
