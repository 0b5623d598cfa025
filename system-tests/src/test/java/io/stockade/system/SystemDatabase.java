package io.stockade.system;

import io.stockade.localinfra.Endpoints;
import io.stockade.localinfra.LocalInfrastructure;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A database of a system test's own, dropped and created again, on the server that local-infra
 * would choose: the one on 3306 when probing is on and it answers, else the embedded one of the
 * data folder (started here if need be, stopped by {@link #close}).
 */
final class SystemDatabase implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SystemDatabase.class);

  private static final String LOOPBACK = "127.0.0.1";
  private static final int DEFAULT_PORT = 3306;

  private final String name;
  private final String url;
  private final JdbcTemplate jdbc;
  private final LocalInfrastructure localInfrastructure;

  private SystemDatabase(
      String name, String url, JdbcTemplate jdbc, LocalInfrastructure localInfrastructure) {
    this.name = name;
    this.url = url;
    this.jdbc = jdbc;
    this.localInfrastructure = localInfrastructure;
  }

  /** Drops the database {@code name} if it is there and creates it empty. */
  static SystemDatabase create(String name) throws SQLException {
    return open(name, true);
  }

  /** The database {@code name} as it is (one a test restored, say). */
  static SystemDatabase existing(String name) throws SQLException {
    return open(name, false);
  }

  private static SystemDatabase open(String name, boolean empty) throws SQLException {
    String host;
    int port;
    boolean mariaDb;
    LocalInfrastructure localInfrastructure = null;
    if (Boolean.getBoolean("stockade.local-infra.probe-default-ports")
        && LocalInfrastructure.answers(LOOPBACK, DEFAULT_PORT)) {
      host = LOOPBACK;
      port = DEFAULT_PORT;
      mariaDb = LocalInfrastructure.isMariaDb(LOOPBACK, DEFAULT_PORT);
    } else {
      localInfrastructure =
          LocalInfrastructure.attachOrStart(
              Path.of(System.getProperty("stockade.local-infra.data-dir", ".stockade")));
      Endpoints endpoints = localInfrastructure.endpoints();
      host = endpoints.databaseHost();
      port = endpoints.databasePort();
      mariaDb = true;
    }
    String server = (mariaDb ? "jdbc:mariadb://" : "jdbc:mysql://") + host + ":" + port;
    String url =
        server
            + "/"
            + name
            + "?createDatabaseIfNotExist=true&connectionTimeZone=UTC"
            + "&forceConnectionTimeZoneToSession=true"
            + (mariaDb ? "" : "&rewriteBatchedStatements=true");
    try (Connection connection = DriverManager.getConnection(server + "/", "root", "");
        Statement statement = connection.createStatement()) {
      if (empty) {
        statement.execute("DROP DATABASE IF EXISTS " + name);
        statement.execute("CREATE DATABASE " + name);
      }
    }
    log.info("The system's database: {}", url);
    return new SystemDatabase(
        name,
        url,
        new JdbcTemplate(new DriverManagerDataSource(url, "root", "")),
        localInfrastructure);
  }

  /** The database server's address, {@code host:port}. */
  String server() {
    String rest = url.substring(url.indexOf("//") + 2);
    return rest.substring(0, rest.indexOf('/'));
  }

  JdbcTemplate jdbc() {
    return jdbc;
  }

  /** The services' arguments that point them at this database. */
  List<String> serviceArguments() {
    return List.of(
        "--spring.datasource.url=" + url,
        "--spring.datasource.username=root",
        "--spring.datasource.password=",
        "--stockade.local-infra.database=" + name);
  }

  @Override
  public void close() {
    if (localInfrastructure != null) {
      localInfrastructure.close();
    }
  }
}
