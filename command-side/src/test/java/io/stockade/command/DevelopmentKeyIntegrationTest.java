package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stockade.platform.testing.ApiClient;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.catalina.connector.Connector;
import org.apache.coyote.AbstractProtocol;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.http.HttpMethod;

/**
 * The local development key, whose private half and long-lived tokens are in the repository, guards
 * only a command side that no other host can reach: the quick start listens on 127.0.0.1, and a
 * service given that key on any other address does not start.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class DevelopmentKeyIntegrationTest {

  private static final String KEY = "spring.security.oauth2.resourceserver.jwt.public-key-location";
  private static final String DEVELOPMENT_KEY =
      "classpath:io/stockade/localinfra/local-dev-jwt.pub";

  @Autowired private Environment suite;

  @Test
  void refusesToStartWithTheDevelopmentKeyOnEveryInterface() {
    // A deployment (its database and Redis configured) given the development key, as the compose
    // file once did, with no server.address: every interface.
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
    deployment.put(KEY, DEVELOPMENT_KEY);

    assertThatThrownBy(() -> start(deployment).close())
        .rootCause()
        .hasMessageContaining("is the local development key")
        .hasMessageContaining(KEY + "=" + DEVELOPMENT_KEY)
        .hasMessageContaining("server.address is not set (every interface)");
  }

  @Test
  void theQuickStartListensOnLoopbackOnlyAndAcceptsTheDevelopmentTokens() throws Exception {
    // As ./stockade up starts it: nothing configured, the servers of the data folder, no key.
    Map<String, Object> quickStart = new HashMap<>();
    quickStart.put("server.port", "0");
    quickStart.put("stockade.local-infra.probe-default-ports", "false");

    try (ConfigurableApplicationContext service = start(quickStart)) {
      Connector connector =
          ((TomcatWebServer) ((WebServerApplicationContext) service).getWebServer())
              .getTomcat()
              .getConnector();
      InetAddress address = ((AbstractProtocol<?>) connector.getProtocolHandler()).getAddress();
      assertThat(address).as("the listener's address").isNotNull();
      assertThat(address.getHostAddress()).isEqualTo("127.0.0.1");
      assertThat(service.getEnvironment().getProperty(KEY)).isEqualTo(DEVELOPMENT_KEY);

      String admin =
          Files.readString(Path.of("..", "local-infra", "dev", "tokens", "admin")).trim();
      int port = connector.getLocalPort();
      assertThat(
              new ApiClient(port)
                  .withToken(admin)
                  .send(
                      HttpMethod.PUT,
                      "/api/skus/quick-" + UUID.randomUUID().toString().substring(0, 8),
                      "{\"initialStock\": 5, \"perUserLimit\": 1}")
                  .getStatusCode()
                  .value())
          .as("the documented admin token works on the quick start")
          .isEqualTo(201);
    }
  }

  /**
   * A command side of its own with these settings and the build's system properties, but for the
   * suite's test key and issuer.
   */
  private static ConfigurableApplicationContext start(Map<String, Object> settings) {
    StandardEnvironment environment = new StandardEnvironment();
    Map<String, Object> systemProperties = new HashMap<>(environment.getSystemProperties());
    systemProperties.remove(KEY);
    systemProperties.remove("stockade.security.issuer");
    environment
        .getPropertySources()
        .replace(
            StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
            new MapPropertySource(
                StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME, systemProperties));
    environment.getPropertySources().addFirst(new MapPropertySource("settings", settings));
    return new SpringApplicationBuilder(CommandSideApplication.class)
        .environment(environment)
        .run();
  }
}
