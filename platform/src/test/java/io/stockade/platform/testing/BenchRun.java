package io.stockade.platform.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the benchmark drivers share: their options as {@code key=value} arguments, and the MariaDB
 * database of their own that they create afresh and drop at the end (options host, port, user,
 * password, database, keep: 127.0.0.1, 3306, root, empty, the driver's default, false).
 */
public final class BenchRun {

  private static final String URL_OPTIONS =
      "?connectionTimeZone=UTC&forceConnectionTimeZoneToSession=true";

  private final Map<String, String> options;
  private final String server;
  private final String database;

  private BenchRun(Map<String, String> options, String defaultDatabase) {
    this.options = options;
    this.server =
        "jdbc:mariadb://" + option("host", "127.0.0.1") + ":" + option("port", "3306") + "/";
    this.database = option("database", defaultDatabase);
  }

  /** The options given as {@code key=value}; the database named {@code defaultDatabase} unless. */
  public static BenchRun of(String[] args, String defaultDatabase) {
    Map<String, String> options = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      options.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    return new BenchRun(options, defaultDatabase);
  }

  public String option(String key, String fallback) {
    return options.getOrDefault(key, fallback);
  }

  public int number(String key, int fallback) {
    return Integer.parseInt(option(key, Integer.toString(fallback)));
  }

  public boolean flag(String key, boolean fallback) {
    return Boolean.parseBoolean(option(key, Boolean.toString(fallback)));
  }

  public String user() {
    return option("user", "root");
  }

  public String password() {
    return option("password", "");
  }

  /** The JDBC URL of the run's database, in UTC as the services use it. */
  public String url() {
    return server + database + URL_OPTIONS;
  }

  /**
   * The arguments that start a query side for a benchmark driver on the run's database and Redis
   * (options redisHost, redisPort): a random port, WARN logs, the test key, no scheduled
   * reconciliation and no warm-up of its own (the driver warms it with the rounds it measures),
   * then {@code more}.
   */
  public String[] querySideArguments(String... more) {
    List<String> arguments =
        new ArrayList<>(
            List.of(
                "--server.port=0",
                "--spring.datasource.url=" + url(),
                "--spring.datasource.username=" + user(),
                "--spring.datasource.password=" + password(),
                "--spring.data.redis.host=" + option("redisHost", "127.0.0.1"),
                "--spring.data.redis.port=" + option("redisPort", "6379"),
                "--logging.level.root=WARN",
                "--spring.security.oauth2.resourceserver.jwt.public-key-location="
                    + TestTokens.PUBLIC_KEY_LOCATION,
                "--stockade.reconciliation.interval=0s",
                "--stockade.warm-up.enabled=false"));
    arguments.addAll(List.of(more));
    return arguments.toArray(String[]::new);
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(url(), user(), password());
  }

  /** Drops the run's database if it is there and creates it empty. */
  public void createDatabase() throws SQLException {
    admin("DROP DATABASE IF EXISTS `" + database + "`");
    admin("CREATE DATABASE `" + database + "`");
  }

  /** Drops the run's database, unless the option keep is true. */
  public void dropDatabase() throws SQLException {
    if (!flag("keep", false)) {
      admin("DROP DATABASE IF EXISTS `" + database + "`");
    }
  }

  private void admin(String sql) throws SQLException {
    try (Connection admin = DriverManager.getConnection(server + URL_OPTIONS, user(), password());
        Statement statement = admin.createStatement()) {
      statement.execute(sql);
    }
  }
}
