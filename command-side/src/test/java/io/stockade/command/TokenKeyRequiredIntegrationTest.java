package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Fail closed: a command side whose database and Redis are configured (a deployment, not the local
 * servers of the quick start) and that is given no key to verify bearer tokens does not start, and
 * says what to set; it never falls back to the local development key.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class TokenKeyRequiredIntegrationTest {

  private static final String KEY = "spring.security.oauth2.resourceserver.jwt.public-key-location";

  @Autowired private Environment suite;

  @Test
  void refusesToStartWithoutATokenKeyWhenItsDatabaseAndRedisAreConfigured() {
    // The suite's database and Redis, given as a deployment gives them.
    Map<String, Object> deployment = new HashMap<>();
    for (String name :
        new String[] {
          "spring.datasource.url",
          "spring.datasource.username",
          "spring.datasource.password",
          "spring.data.redis.host",
          "spring.data.redis.port"
        }) {
      deployment.put(name, suite.getProperty(name));
    }
    deployment.put("server.port", "0");
    StandardEnvironment environment = new StandardEnvironment();
    // The suite gives every service the test key as a system property; this one gets none.
    Map<String, Object> systemProperties = new HashMap<>(environment.getSystemProperties());
    systemProperties.remove(KEY);
    systemProperties.remove("stockade.security.issuer");
    environment
        .getPropertySources()
        .replace(
            StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
            new MapPropertySource(
                StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME, systemProperties));
    environment.getPropertySources().addFirst(new MapPropertySource("deployment", deployment));
    assertThat(environment.getProperty(KEY)).isNull();

    assertThatThrownBy(
            () ->
                new SpringApplicationBuilder(CommandSideApplication.class)
                    .environment(environment)
                    .run()
                    .close())
        .rootCause()
        .hasMessageStartingWith("No key to verify bearer tokens is configured")
        .hasMessageContaining("public-key-location");
  }
}
