package io.stockade.platform.security;

import jakarta.servlet.DispatcherType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.security.access.hierarchicalroles.RoleHierarchy;
import org.springframework.security.access.hierarchicalroles.RoleHierarchyImpl;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.WebSecurityCustomizer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationConverter;
import org.springframework.security.oauth2.server.resource.authentication.JwtGrantedAuthoritiesConverter;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.firewall.StrictHttpFirewall;
import org.springframework.web.cors.CorsConfigurationSource;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Bearer JWTs in every Stockade web application: a stateless API (no session, no CSRF token, no
 * login page) whose requests carry {@code Authorization: Bearer <JWT>}. The token's key comes from
 * Spring Boot's {@code spring.security.oauth2.resourceserver.jwt.*} settings; without one the
 * application does not start, nor with the local development key unless every listener is on
 * loopback ({@code server.address}, and {@code management.server.address} with a port of its own).
 * Roles come from the {@code roles} claim; {@code /actuator/health} and its groups are open, {@code
 * /actuator/prometheus} needs {@code metrics}, the rest of the actuator needs {@code admin}, each
 * service's endpoints need what its {@link ApiAccessRules} say, and anything else is denied. A
 * service that declares a {@link CorsConfigurationSource} named {@code corsConfigurationSource} has
 * its cross-origin requests checked first in the chain ({@link CrossOriginFilter}): a preflight
 * from an allowed origin is answered there, without a token, and another origin's request is a 403
 * problem.
 */
@AutoConfiguration(
    beforeName = {
      // Each of them adds a filter chain of its own unless one exists already.
      "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration",
      "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
      "org.springframework.boot.security.oauth2.server.resource.autoconfigure.servlet.OAuth2ResourceServerAutoConfiguration"
    })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class SecurityConfiguration {

  @Bean
  SecurityFilterChain apiSecurity(
      HttpSecurity http,
      ObjectProvider<JwtDecoder> decoders,
      ObjectProvider<ApiAccessRules> rules,
      ObjectProvider<WarmUpTokens> warmUp,
      // By the name Spring Security looks for: Spring MVC's HandlerMappingIntrospector is a
      // CorsConfigurationSource too.
      @Qualifier("corsConfigurationSource") ObjectProvider<CorsConfigurationSource> crossOrigin,
      SecurityProblems problems,
      Environment environment,
      ResourceLoader resources) {
    JwtDecoder configured = decoders.getIfUnique();
    if (configured == null) {
      throw new MissingTokenKeyException();
    }
    WarmUpTokens warmUpTokens = warmUp.getIfAvailable();
    JwtDecoder decoder =
        warmUpTokens == null
            ? remembering(configured, environment)
            : warmUpTokens.acceptingUntilClosed(remembering(configured, environment));
    // Before the web server starts: a refused key never listens.
    LocalDevelopmentKey.refuseUnlessOnLoopback(environment, resources);
    http.sessionManagement(
            session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .csrf(csrf -> csrf.disable())
        .formLogin(form -> form.disable())
        .httpBasic(basic -> basic.disable())
        .logout(logout -> logout.disable())
        .requestCache(cache -> cache.disable())
        .oauth2ResourceServer(
            server ->
                server
                    .bearerTokenResolver(new BearerTokens())
                    .jwt(jwt -> jwt.decoder(decoder).jwtAuthenticationConverter(rolesClaim()))
                    .authenticationEntryPoint(problems)
                    .accessDeniedHandler(problems))
        .exceptionHandling(
            exceptions ->
                exceptions.authenticationEntryPoint(problems).accessDeniedHandler(problems))
        .authorizeHttpRequests(
            requests -> {
              // The error page and the rest of an asynchronous response (live streams) belong to
              // a request that was authorized already.
              requests
                  .dispatcherTypeMatchers(DispatcherType.ERROR, DispatcherType.ASYNC)
                  .permitAll();
              // Health and its groups (liveness, readiness) for load balancers and orchestrators.
              requests.requestMatchers(EndpointRequest.to("health")).permitAll();
              // The scrape path alone, so that a monitoring system's token is no admin's.
              requests.requestMatchers(EndpointRequest.to("prometheus")).hasRole(Roles.METRICS);
              requests.requestMatchers(EndpointRequest.toAnyEndpoint()).hasRole(Roles.ADMIN);
              rules.orderedStream().forEach(rule -> rule.authorize(requests));
              requests.anyRequest().denyAll();
            });
    CorsConfigurationSource origins = crossOrigin.getIfUnique();
    if (origins != null) {
      // In place of the CORS filter Spring Security adds by itself for such a bean.
      http.cors(cors -> cors.disable()).addFilter(new CrossOriginFilter(origins, problems));
    }
    return http.build();
  }

  /**
   * Spring Security's strict firewall, as strict, with header and parameter names and values
   * checked by {@link FirewallCharacters} instead of its regular expressions.
   */
  @Bean
  WebSecurityCustomizer strictFirewallWithoutRegularExpressions() {
    StrictHttpFirewall firewall = new StrictHttpFirewall();
    firewall.setAllowedHeaderNames(FirewallCharacters::name);
    firewall.setAllowedHeaderValues(FirewallCharacters::value);
    firewall.setAllowedParameterNames(FirewallCharacters::name);
    return web -> web.httpFirewall(firewall);
  }

  /** Also Spring Security's handler of the URLs its firewall refuses. */
  @Bean
  SecurityProblems securityProblems(
      @Qualifier("handlerExceptionResolver") HandlerExceptionResolver problemResolver) {
    return new SecurityProblems(problemResolver);
  }

  /**
   * Spring Security observes none of its filters, authentications and authorizations: its chain
   * runs undecorated. Observations turned off by a predicate instead (the setting {@code
   * management.observations.enable.spring.security}) still wrapped every filter of the chain, the
   * authentication and the authorization in an observation of their own for each request, a tenth
   * of a refused reservation's CPU with them on and about 1.4% off. The HTTP requests themselves
   * stay observed ({@code http.server.requests}).
   */
  @Bean
  static SecurityObservationSettings noSecurityObservations() {
    return SecurityObservationSettings.noObservations();
  }

  /** {@code admin} implies {@code client}, {@code reader} and {@code metrics}. */
  @Bean
  static RoleHierarchy roleHierarchy() {
    return RoleHierarchyImpl.withDefaultRolePrefix()
        .role(Roles.ADMIN)
        .implies(Roles.CLIENT, Roles.READER, Roles.METRICS)
        .build();
  }

  /** Tokens without an expiry are refused (Spring checks {@code exp} only when it is there). */
  @Bean
  OAuth2TokenValidator<Jwt> tokenMustExpire() {
    return new JwtClaimValidator<Instant>(JwtClaimNames.EXP, Objects::nonNull);
  }

  /**
   * With a key (rather than {@code issuer-uri}, which checks it itself), {@code iss} must be {@code
   * stockade.security.issuer} when that is set.
   */
  @Bean
  @ConditionalOnProperty("stockade.security.issuer")
  OAuth2TokenValidator<Jwt> tokenFromConfiguredIssuer(Environment environment) {
    return new JwtIssuerValidator(environment.getRequiredProperty("stockade.security.issuer"));
  }

  /**
   * The configured decoder behind a cache of the tokens it accepted ({@link VerifiedTokens}):
   * {@code stockade.security.token-cache.max-size} tokens (0: no cache), each kept until its {@code
   * exp} and at most {@code stockade.security.token-cache.max-age}.
   */
  private static JwtDecoder remembering(JwtDecoder configured, Environment environment) {
    int maxSize =
        environment.getProperty("stockade.security.token-cache.max-size", Integer.class, 4096);
    Duration maxAge =
        environment.getProperty(
            "stockade.security.token-cache.max-age", Duration.class, Duration.ofMinutes(5));
    if (maxSize <= 0 || maxAge.isNegative() || maxAge.isZero()) {
      return configured;
    }
    return new VerifiedTokens(configured, maxSize, maxAge, Clock.systemUTC());
  }

  private static JwtAuthenticationConverter rolesClaim() {
    JwtGrantedAuthoritiesConverter roles = new JwtGrantedAuthoritiesConverter();
    roles.setAuthoritiesClaimName(Roles.CLAIM);
    roles.setAuthorityPrefix("ROLE_");
    JwtAuthenticationConverter converter = new JwtAuthenticationConverter();
    converter.setJwtGrantedAuthoritiesConverter(roles);
    return converter;
  }
}
