package io.stockade.localinfra;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The local development key comes only with the servers of the data folder, decided after the
 * default ports were probed: a server that merely answers on a default port may serve others.
 */
class LocalInfraEnvironmentPostProcessorTest {

  private static final String KEY = "spring.security.oauth2.resourceserver.jwt.public-key-location";

  private final DeferredLogFactory logs = supplier -> LogFactory.getLog(getClass());

  @Test
  void givesNoDevelopmentKeyWhenAProbedDefaultPortSuppliesTheDatabase() throws IOException {
    // A stand-in for a database on the default port: the probe only asks whether something
    // accepts connections there (and reads a greeting, which never comes). This module's
    // classpath has no Redis client, so the database is all the application needs.
    try (ServerSocket database = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      StandardEnvironment environment = environment();

      new LocalInfraEnvironmentPostProcessor(logs)
          .postProcessEnvironment(environment, new SpringApplication(), database.getLocalPort(), 0);

      assertThat(environment.getProperty("spring.datasource.url"))
          .as("the probed database is used")
          .contains(":" + database.getLocalPort() + "/");
      assertThat(environment.getProperty(KEY)).as("no development key").isNull();
      assertThat(environment.getProperty("server.address")).isNull();
    }
  }

  /**
   * Nothing of the infrastructure configured, probing on, no key: as the old quick start saw it.
   */
  private static StandardEnvironment environment() {
    StandardEnvironment environment = new StandardEnvironment();
    // Whatever the build gives as system properties (the suite's key, its database) stays out.
    environment
        .getPropertySources()
        .remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
    environment
        .getPropertySources()
        .remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
    environment
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                "test",
                Map.of(
                    LocalInfraEnvironmentPostProcessor.PREFIX + "probe-default-ports",
                    "true",
                    LocalInfraEnvironmentPostProcessor.PREFIX + "database",
                    "stockade_test")));
    return environment;
  }
}
