package io.stockade.command;

import static org.springframework.http.HttpMethod.GET;
import static org.springframework.http.HttpMethod.POST;
import static org.springframework.http.HttpMethod.PUT;

import io.stockade.platform.security.ApiAccessRules;
import io.stockade.platform.security.Roles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Which role each endpoint of the command side needs. Anything not named here is denied (the
 * platform's last rule); the actuator's rules are the platform's.
 */
@Configuration(proxyBeanMethods = false)
class AccessConfiguration {

  @Bean
  ApiAccessRules commandSideAccess() {
    return requests ->
        requests
            .requestMatchers(
                POST,
                "/api/reservations",
                "/api/reservations/*/confirm",
                "/api/reservations/*/release",
                "/api/reservations/*/extend")
            .hasRole(Roles.CLIENT)
            .requestMatchers(PUT, "/api/skus/*", "/api/skus/*/sale", "/api/skus/*/limit")
            .hasRole(Roles.ADMIN)
            .requestMatchers(
                POST,
                "/api/skus/*/replenishments",
                "/api/skus/*/adjustments",
                "/api/skus/*/pause",
                "/api/skus/*/resume")
            .hasRole(Roles.ADMIN)
            .requestMatchers(GET, "/api/skus/*", "/api/skus/*/draw")
            .hasAnyRole(Roles.ADMIN, Roles.READER);
  }
}
