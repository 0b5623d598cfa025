package io.stockade.platform.security;

import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AuthorizeHttpRequestsConfigurer;

/**
 * A service's endpoints and the role each needs, declared as a bean by the service. They are
 * applied after the actuator's rules and before the last one, which denies every request that no
 * rule names.
 */
@FunctionalInterface
public interface ApiAccessRules {

  void authorize(
      AuthorizeHttpRequestsConfigurer<HttpSecurity>.AuthorizationManagerRequestMatcherRegistry
          requests);
}
