package io.stockade.localinfra;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * The zero-install default: when {@code spring.datasource.url} or (for an application that uses
 * Redis) a Redis address is not configured, points the application at local servers.
 *
 * <p>With {@code stockade.local-infra.probe-default-ports=true} (the test suite's setting) a
 * MariaDB/MySQL on 127.0.0.1:3306 (root, no password) and a Redis on 127.0.0.1:6379 are used when
 * they answer. Whatever is still missing is started embedded in {@code
 * stockade.local-infra.data-dir}, or attached to when another process already started it there.
 *
 * <p>When the servers it starts (or attaches to) in the data folder supply everything, and no key
 * to verify bearer tokens is configured, the services accept tokens signed by the local development
 * key ({@value #LOCAL_DEV_KEY}; its private half and long-lived tokens are in the repository), so
 * that the quick start works; they then listen on 127.0.0.1 only ({@code server.address}, and
 * {@code management.server.address} when the actuator has a port of its own, unless set), and the
 * platform refuses that key on any other address. A server found on a default port is not one of
 * them: it may serve others, so it never brings that key. A deployment configures its database and
 * Redis, so it never gets that key: without a key of its own it does not start.
 */
class LocalInfraEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

  static final String PREFIX = "stockade.local-infra.";
  private static final int DEFAULT_DATABASE_PORT = 3306;
  private static final int DEFAULT_REDIS_PORT = 6379;
  private static final String LOOPBACK = "127.0.0.1";
  private static final String REDIS_CLIENT =
      "org.springframework.data.redis.connection.RedisConnectionFactory";

  /** The public half of the local development key pair: never for a deployment. */
  static final String LOCAL_DEV_KEY = "classpath:io/stockade/localinfra/local-dev-jwt.pub";

  private static final String JWT = "spring.security.oauth2.resourceserver.jwt.";
  private static final String KEY_LOCATION = JWT + "public-key-location";
  private static final String KAFKA = "stockade.kafka.bootstrap-servers";

  private static LocalInfrastructure started;

  private final Log log;

  LocalInfraEnvironmentPostProcessor(DeferredLogFactory logs) {
    this.log = logs.getLog(LocalInfraEnvironmentPostProcessor.class);
  }

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    postProcessEnvironment(environment, application, DEFAULT_DATABASE_PORT, DEFAULT_REDIS_PORT);
  }

  /** With other ports to probe than the default ones (tests). */
  void postProcessEnvironment(
      ConfigurableEnvironment environment,
      SpringApplication application,
      int databasePort,
      int redisPort) {
    if (!environment.getProperty(PREFIX + "enabled", Boolean.class, true)) {
      return;
    }
    boolean needDatabase = !environment.containsProperty("spring.datasource.url");
    boolean needRedis =
        usesRedis(application)
            && !environment.containsProperty("spring.data.redis.host")
            && !environment.containsProperty("spring.data.redis.url")
            && !environment.containsProperty("spring.data.redis.cluster.nodes");
    if (!needDatabase && !needRedis) {
      return;
    }
    String database = environment.getProperty(PREFIX + "database", "stockade");
    Map<String, Object> properties = new HashMap<>();
    if (environment.getProperty(PREFIX + "probe-default-ports", Boolean.class, false)) {
      if (needDatabase && LocalInfrastructure.answers(LOOPBACK, databasePort)) {
        boolean mariaDb = LocalInfrastructure.isMariaDb(LOOPBACK, databasePort);
        putDatabase(properties, Endpoints.jdbcUrl(LOOPBACK, databasePort, database, mariaDb));
        needDatabase = false;
      }
      if (needRedis && LocalInfrastructure.answers(LOOPBACK, redisPort)) {
        putRedis(properties, LOOPBACK, redisPort);
        needRedis = false;
      }
    }
    // Decided after probing: only the servers of the data folder make the quick start.
    boolean allLocal = needDatabase && (needRedis || !usesRedis(application));
    if (needDatabase || needRedis) {
      Path dataDir = Path.of(environment.getProperty(PREFIX + "data-dir", ".stockade"));
      Endpoints endpoints = localServers(dataDir).endpoints();
      if (needDatabase) {
        putDatabase(properties, endpoints.jdbcUrl(database));
      }
      if (needRedis) {
        putRedis(properties, endpoints.redisHost(), endpoints.redisPort());
      }
      // The quick start's broker (STOCKADE_KAFKA=1), for the query side's publisher.
      if (!environment.containsProperty(KAFKA)) {
        LocalInfrastructure.kafka(dataDir).ifPresent(servers -> properties.put(KAFKA, servers));
      }
    }
    if (allLocal && !hasTokenKey(environment)) {
      properties.put(KEY_LOCATION, LOCAL_DEV_KEY);
      // An unset address is every interface; a set one stays, and the platform refuses the key
      // unless it is a loopback address.
      if (!environment.containsProperty("server.address")) {
        properties.put("server.address", LOOPBACK);
      }
      if (hasOwnManagementPort(environment)
          && !environment.containsProperty("management.server.address")) {
        properties.put("management.server.address", LOOPBACK);
      }
      log.warn(
          "No token key configured and everything local: accepting bearer tokens signed by the"
              + " local development key, listening on "
              + environment.getProperty("server.address", LOOPBACK)
              + " only (never use it in a deployment; see docs/api.md, Security)");
    }
    environment
        .getPropertySources()
        .addLast(new MapPropertySource("stockadeLocalInfra", properties));
  }

  /** Whether the application is told where to find a key to verify bearer tokens. */
  private static boolean hasTokenKey(ConfigurableEnvironment environment) {
    return Stream.of("public-key-location", "jwk-set-uri", "issuer-uri")
        .anyMatch(name -> StringUtils.hasText(environment.getProperty(JWT + name)));
  }

  /**
   * Whether the actuator listens on a port of its own (Spring Boot refuses an address for it
   * otherwise).
   */
  private static boolean hasOwnManagementPort(ConfigurableEnvironment environment) {
    Integer management = environment.getProperty("management.server.port", Integer.class);
    Integer server = environment.getProperty("server.port", Integer.class);
    if (management == null || management < 0) {
      return false;
    }
    return server == null ? management != 8080 : management == 0 || !management.equals(server);
  }

  private static boolean usesRedis(SpringApplication application) {
    return ClassUtils.isPresent(REDIS_CLIENT, application.getClassLoader());
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
