package io.stockade.command.admission.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.stockade.command.CommandSideApplication;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The gate stays closed, and says why, where opening it could sell a unit twice or lose one: on a
 * Redis that may evict keys, and while its rebuild fails (which is tried again, in the same epoch,
 * after a pause that grows).
 */
class GateStaysClosedIntegrationTest {

  private static final String DATABASE = "stockade_test_closed";

  private static EmbeddedRedis redis;
  private static ConfigurableApplicationContext service;
  private static StringRedisTemplate gateRedis;
  private static GateLayout layout;
  private static JdbcTemplate jdbc;
  private static ApiClient http;

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void start() {
    redis = EmbeddedRedis.start(Path.of("target", "closed-it-" + UUID.randomUUID()));
    service =
        new SpringApplicationBuilder(CommandSideApplication.class)
            .run(
                "--server.port=0",
                "--spring.data.redis.host=127.0.0.1",
                "--spring.data.redis.port=" + redis.port(),
                "--stockade.local-infra.database=" + DATABASE,
                "--stockade.gate.reopen-interval=200ms");
    gateRedis = service.getBean(StringRedisTemplate.class);
    layout = service.getBean(GateLayout.class);
    jdbc = service.getBean(JdbcTemplate.class);
    http =
        new ApiClient(Integer.parseInt(service.getEnvironment().getProperty("local.server.port")));
  }

  @AfterEach
  void redisAsProductionNeedsIt() {
    config("maxmemory-policy", "noeviction");
    config("maxmemory", "0");
  }

  @AfterAll
  static void stop() {
    if (service != null) {
      service.close();
    }
    if (redis != null) {
      redis.stop();
    }
  }

  @Test
  void staysClosedOnARedisThatMayEvictKeysAndSaysWhy() {
    await().atMost(Duration.ofSeconds(60)).until(GateStaysClosedIntegrationTest::ready);
    String sku = register("evict-" + run, 5);
    long epoch = epoch();

    for (String policy : List.of("allkeys-lru", "volatile-ttl")) {
      // Changed while the gate is open: the health check notices.
      config("maxmemory-policy", policy);

      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(gate().path("details").path("reason").asString())
                      .contains("maxmemory-policy " + policy)
                      .contains("noeviction"));
      assertThat(ready()).isFalse();
      assertThat(reserve(sku)).as("policy " + policy).isEqualTo(503);
    }

    config("maxmemory-policy", "noeviction");
    await().atMost(Duration.ofSeconds(30)).until(GateStaysClosedIntegrationTest::ready);
    assertThat(gate().path("details").has("reason")).isFalse();
    assertThat(epoch()).as("rebuilt: keys may have been evicted meanwhile").isEqualTo(epoch + 1);
    assertThat(reserve(sku)).isEqualTo(201);
  }

  @Test
  void aRebuildThatFailsSaysWhyOnEveryAttemptAndBacksOff() {
    await().atMost(Duration.ofSeconds(60)).until(GateStaysClosedIntegrationTest::ready);
    String sku = register("oom-" + run, 5);
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    Logger keeper = (Logger) LoggerFactory.getLogger(GateKeeper.class);
    log.start();
    keeper.addAppender(log);
    try {
      // Redis refuses every write: the rebuild fails at its first one, on every attempt.
      config("maxmemory", "1");
      loseTheGate();

      await().atMost(Duration.ofSeconds(30)).until(() -> failures(log).size() >= 3);
      List<ILoggingEvent> failures = failures(log);
      for (ILoggingEvent failure : failures) {
        assertThat(failure.getFormattedMessage()).contains("OOM");
        assertThat(failure.getThrowableProxy()).as("the cause, logged").isNotNull();
      }
      assertThat(failures.get(1).getTimeStamp() - failures.get(0).getTimeStamp())
          .as("a pause of 1 s after the first failure")
          .isGreaterThanOrEqualTo(1000);
      assertThat(failures.get(2).getTimeStamp() - failures.get(1).getTimeStamp())
          .as("then of 2 s")
          .isGreaterThanOrEqualTo(2000);
      long epoch = epoch();
      JsonNode gate = gate();
      assertThat(gate.path("details").path("state").asString()).isEqualTo("REBUILDING");
      assertThat(gate.path("details").path("reason").asString()).contains("OOM");
      assertThat(gate.path("details").path("failedRebuilds").asInt()).isGreaterThanOrEqualTo(3);
      assertThat(reserve(sku)).isEqualTo(503);

      config("maxmemory", "0");
      await().atMost(Duration.ofSeconds(30)).until(GateStaysClosedIntegrationTest::ready);
      assertThat(epoch()).as("every attempt in the same epoch").isEqualTo(epoch);
      assertThat(reserve(sku)).isEqualTo(201);
      assertThat(gateRedis.opsForHash().entries(layout.counters(sku)))
          .containsEntry("available", "4");
    } finally {
      keeper.detachAppender(log);
    }
  }

  private static List<ILoggingEvent> failures(ListAppender<ILoggingEvent> log) {
    return List.copyOf(log.list).stream()
        .filter(event -> event.getLevel() == Level.ERROR)
        .filter(event -> event.getFormattedMessage().startsWith("Gate stays closed"))
        .toList();
  }

  /** Redis loses the gate's marker; the health check notices and the gate tries to open again. */
  private void loseTheGate() {
    for (GateLayout.Partition partition : layout.partitions()) {
      gateRedis.delete(partition.marker());
    }
    ready();
  }

  private static void config(String name, String value) {
    gateRedis.execute(
        (RedisCallback<Object>)
            connection -> {
              connection.serverCommands().setConfig(name, value);
              return null;
            });
  }

  private static boolean ready() {
    return http.get("/actuator/health/readiness").getStatusCode().value() == 200;
  }

  private static JsonNode gate() {
    return http.get("/actuator/health/readiness").getBody().path("components").path("gate");
  }

  private String register(String sku, int stock) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                http.status(
                    HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": " + stock + "}"),
            status -> status == 201);
    return sku;
  }

  private int reserve(String sku) {
    return http.status(
        HttpMethod.POST,
        "/api/reservations",
        "{\"reservationId\":\"C-"
            + UUID.randomUUID()
            + "\",\"userId\":\"u-"
            + run
            + "\",\"lines\":[{\"skuId\":\""
            + sku
            + "\",\"quantity\":1}]}");
  }

  private static long epoch() {
    return jdbc.queryForObject("select epoch from gate_epoch where id = 1", Long.class);
  }
}
