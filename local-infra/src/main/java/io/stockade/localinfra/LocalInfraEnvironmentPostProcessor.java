package io.stockade.localinfra;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.ClassUtils;

/**
 * The zero-install default: when {@code spring.datasource.url} or (for an application that uses
 * Redis) a Redis address is not configured, points the application at local servers.
 *
 * <p>With {@code stockade.local-infra.probe-default-ports=true} (the test suite's setting) a
 * MariaDB/MySQL on 127.0.0.1:3306 (root, no password) and a Redis on 127.0.0.1:6379 are used when
 * they answer. Whatever is still missing is started embedded in {@code
 * stockade.local-infra.data-dir}, or attached to when another process already started it there.
 */
class LocalInfraEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

  static final String PREFIX = "stockade.local-infra.";
  private static final int DEFAULT_DATABASE_PORT = 3306;
  private static final int DEFAULT_REDIS_PORT = 6379;
  private static final String LOOPBACK = "127.0.0.1";
  private static final String REDIS_CLIENT =
      "org.springframework.data.redis.connection.RedisConnectionFactory";

  private static LocalInfrastructure started;

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    if (!environment.getProperty(PREFIX + "enabled", Boolean.class, true)) {
      return;
    }
    boolean needDatabase = !environment.containsProperty("spring.datasource.url");
    boolean needRedis =
        ClassUtils.isPresent(REDIS_CLIENT, application.getClassLoader())
            && !environment.containsProperty("spring.data.redis.host")
            && !environment.containsProperty("spring.data.redis.url");
    if (!needDatabase && !needRedis) {
      return;
    }
    String database = environment.getProperty(PREFIX + "database", "stockade");
    Map<String, Object> properties = new HashMap<>();
    if (environment.getProperty(PREFIX + "probe-default-ports", Boolean.class, false)) {
      if (needDatabase && LocalInfrastructure.answers(LOOPBACK, DEFAULT_DATABASE_PORT)) {
        boolean mariaDb = LocalInfrastructure.isMariaDb(LOOPBACK, DEFAULT_DATABASE_PORT);
        putDatabase(
            properties, Endpoints.jdbcUrl(LOOPBACK, DEFAULT_DATABASE_PORT, database, mariaDb));
        needDatabase = false;
      }
      if (needRedis && LocalInfrastructure.answers(LOOPBACK, DEFAULT_REDIS_PORT)) {
        putRedis(properties, LOOPBACK, DEFAULT_REDIS_PORT);
        needRedis = false;
      }
    }
    if (needDatabase || needRedis) {
      Path dataDir = Path.of(environment.getProperty(PREFIX + "data-dir", ".stockade"));
      Endpoints endpoints = localServers(dataDir).endpoints();
      if (needDatabase) {
        putDatabase(properties, endpoints.jdbcUrl(database));
      }
      if (needRedis) {
        putRedis(properties, endpoints.redisHost(), endpoints.redisPort());
      }
    }
    environment
        .getPropertySources()
        .addLast(new MapPropertySource("stockadeLocalInfra", properties));
  }

  /** One set of servers per JVM, however many application contexts (tests) ask for them. */
  private static synchronized LocalInfrastructure localServers(Path dataDir) {
    if (started == null) {
      started = LocalInfrastructure.attachOrStart(dataDir);
      if (started.owned()) {
        // Runs after every application context of this JVM has been closed.
        SpringApplication.getShutdownHandlers().add(started::close);
      }
    }
    return started;
  }

  private static void putDatabase(Map<String, Object> properties, String url) {
    properties.put("spring.datasource.url", url);
    properties.put("spring.datasource.username", "root");
    properties.put("spring.datasource.password", "");
  }

  private static void putRedis(Map<String, Object> properties, String host, int port) {
    properties.put("spring.data.redis.host", host);
    properties.put("spring.data.redis.port", port);
  }

  @Override
  public int getOrder() {
    // After application.yml and the environment have been read: only fill what they leave open.
    return Ordered.LOWEST_PRECEDENCE;
  }
}
