package io.stockade.platform.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.mock.env.MockEnvironment;

/**
 * The local development key (anyone can sign with it) verifies tokens only when every listener is
 * on loopback; any other key anywhere.
 */
class LocalDevelopmentKeyTest {

  /** The development key's public half, as local-infra ships it. */
  private static final Path DEVELOPMENT_KEY =
      Path.of("..", "local-infra", "src", "main", "resources", "io", "stockade", "localinfra")
          .resolve("local-dev-jwt.pub");

  private static final String TEST_KEY = "classpath:io/stockade/platform/testing/test-jwt.pub";

  private final DefaultResourceLoader resources = new DefaultResourceLoader();

  @Test
  void refusesTheDevelopmentKeyOnEveryInterface() {
    MockEnvironment unset = developmentKey();
    MockEnvironment everyInterface = developmentKey().withProperty("server.address", "0.0.0.0");
    MockEnvironment otherHost = developmentKey().withProperty("server.address", "192.0.2.7");

    assertThatThrownBy(() -> check(unset))
        .isInstanceOf(DevelopmentKeyExposedException.class)
        .hasMessageContaining("public-key-location")
        .hasMessageContaining("server.address is not set (every interface)");
    assertThatThrownBy(() -> check(everyInterface))
        .isInstanceOf(DevelopmentKeyExposedException.class)
        .hasMessageContaining("server.address is 0.0.0.0");
    assertThatThrownBy(() -> check(otherHost))
        .isInstanceOf(DevelopmentKeyExposedException.class)
        .hasMessageContaining("server.address is 192.0.2.7");
  }

  @Test
  void refusesTheDevelopmentKeyWhenTheActuatorListensBeyondLoopback() {
    MockEnvironment ownPortEveryInterface =
        onLoopback()
            .withProperty("server.port", "8080")
            .withProperty("management.server.port", "9090");
    MockEnvironment otherAddress =
        onLoopback()
            .withProperty("management.server.port", "9090")
            .withProperty("management.server.address", "0.0.0.0");

    assertThatThrownBy(() -> check(ownPortEveryInterface))
        .isInstanceOf(DevelopmentKeyExposedException.class)
        .hasMessageContaining("management.server.address is not set (every interface)")
        .hasMessageContaining("management.server.port is 9090");
    assertThatThrownBy(() -> check(otherAddress))
        .isInstanceOf(DevelopmentKeyExposedException.class)
        .hasMessageContaining("management.server.address is 0.0.0.0");
  }

  @Test
  void acceptsTheDevelopmentKeyWhenEveryListenerIsOnLoopback() {
    assertThatCode(() -> check(onLoopback())).doesNotThrowAnyException();
    assertThatCode(() -> check(developmentKey().withProperty("server.address", "::1")))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                check(
                    onLoopback()
                        .withProperty("management.server.port", "9090")
                        .withProperty("management.server.address", "127.0.0.1")))
        .doesNotThrowAnyException();
    // The actuator on the server's own port, or off: no listener of its own.
    assertThatCode(
            () ->
                check(
                    onLoopback()
                        .withProperty("server.port", "8080")
                        .withProperty("management.server.port", "8080")))
        .doesNotThrowAnyException();
    assertThatCode(() -> check(onLoopback().withProperty("management.server.port", "-1")))
        .doesNotThrowAnyException();
  }

  @Test
  void recognisesTheDevelopmentKeyByItsContentWhereverItIsRead(@TempDir Path dir)
      throws IOException {
    // The same key, copied and wrapped otherwise.
    String pem = Files.readString(DEVELOPMENT_KEY);
    String body = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    Path copy = dir.resolve("jwt.pub");
    Files.writeString(
        copy,
        "-----BEGIN PUBLIC KEY-----\r\n"
            + body.replaceAll("(.{40})", "$1\r\n")
            + "\r\n-----END PUBLIC KEY-----\r\n");
    MockEnvironment copied =
        new MockEnvironment()
            .withProperty(LocalDevelopmentKey.KEY_LOCATION, copy.toUri().toString())
            .withProperty("server.address", "0.0.0.0");

    assertThatThrownBy(() -> check(copied)).isInstanceOf(DevelopmentKeyExposedException.class);
  }

  @Test
  void acceptsAnyOtherKeyOnEveryInterface() {
    MockEnvironment otherKey =
        new MockEnvironment()
            .withProperty(LocalDevelopmentKey.KEY_LOCATION, TEST_KEY)
            .withProperty("server.address", "0.0.0.0");

    assertThatCode(() -> check(otherKey)).doesNotThrowAnyException();
    assertThatCode(() -> check(new MockEnvironment())).doesNotThrowAnyException();
    assertThat(LocalDevelopmentKey.isDevelopmentKey(resources.getResource(TEST_KEY))).isFalse();
  }

  private void check(MockEnvironment environment) {
    LocalDevelopmentKey.refuseUnlessOnLoopback(environment, resources);
  }

  private static MockEnvironment developmentKey() {
    return new MockEnvironment()
        .withProperty(LocalDevelopmentKey.KEY_LOCATION, DEVELOPMENT_KEY.toUri().toString());
  }

  private static MockEnvironment onLoopback() {
    return developmentKey().withProperty("server.address", "127.0.0.1");
  }
}
