package io.stockade.query;

import static org.springframework.http.HttpMethod.GET;
import static org.springframework.http.HttpMethod.POST;

import io.stockade.platform.security.ApiAccessRules;
import io.stockade.platform.security.Roles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Which role each endpoint of the query side needs; the dashboard's files are open. Anything not
 * named here is denied (the platform's last rule); the actuator's rules are the platform's.
 */
@Configuration(proxyBeanMethods = false)
class AccessConfiguration {

  @Bean
  ApiAccessRules querySideAccess() {
    return requests ->
        requests
            .requestMatchers(POST, "/api/replays")
            .hasRole(Roles.ADMIN)
            .requestMatchers(
                GET,
                "/api/stock",
                "/api/stock/*",
                "/api/stock/*/stream",
                "/api/sales",
                "/api/reservations/*",
                "/api/audit/reservations/*",
                "/api/audit/skus/*",
                "/api/audit/skus/*/decisions",
                "/api/audit/users/*/decisions",
                "/api/decisions/rate",
                "/api/gate",
                "/api/reconciliation",
                "/api/reconciliation/skus/*",
                "/api/replays/*",
                "/api/events",
                "/api/events/stream")
            .hasRole(Roles.READER)
            // The dashboard's page, script and style: what it shows comes from the calls above,
            // with the token the operator types into it.
            .requestMatchers(GET, "/", "/dashboard", "/dashboard/**")
            .permitAll();
  }
}
