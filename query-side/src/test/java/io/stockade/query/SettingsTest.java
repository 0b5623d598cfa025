package io.stockade.query;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The settings the query side's own {@code application.yml} gives, as the running service sees
 * them: where it sets a key that the platform's {@code stockade-platform.yml} (which it imports)
 * sets too, its own value is the one in force.
 */
class SettingsTest {

  @Configuration(proxyBeanMethods = false)
  static class NoBeans {}

  @Test
  void theQuerySidesShortWarmUpIsTheOneInForce() {
    SpringApplication application = new SpringApplication(NoBeans.class);
    application.setWebApplicationType(WebApplicationType.NONE);
    try (ConfigurableApplicationContext context = application.run()) {
      assertThat(context.getEnvironment().getProperty("stockade.warm-up.max-duration"))
          .isEqualTo("30s");
      // The platform's other warm-up settings still apply.
      assertThat(context.getEnvironment().getProperty("stockade.warm-up.concurrency"))
          .isEqualTo("2");
    }
  }
}
