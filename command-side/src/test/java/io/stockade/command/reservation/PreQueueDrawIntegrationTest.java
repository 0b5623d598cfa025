package io.stockade.command.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.draw.DrawSeed;
import io.stockade.command.CommandSideApplication;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The pre-queue and its draw over HTTP (api.md 1.2, "Fair start"), on a Redis and a database of the
 * test's own with the decision log on: 10,000 reservations queued before the opening (two SKUs with
 * per-user limits, users queued several times, orders of both SKUs, merged lines) are each answered
 * 202 with the draw's commitment; from the opening, arrivals wait (503 draw-in-progress) until the
 * draw is decided; the draw decides every queued reservation exactly as a reservation arriving then
 * would be, in the order the revealed seed gives, which the published draw lets anyone check, and
 * the decision log holds the decisions in that order. The draw is run by the test (the instance's
 * own poller is off), so that the wait before it is seen.
 */
class PreQueueDrawIntegrationTest {

  private static final String DATABASE =
      "stockade_test_draw_" + UUID.randomUUID().toString().substring(0, 8);

  private static final int QUEUED = 10_000;

  private static EmbeddedRedis redis;
  private static ConfigurableApplicationContext service;
  private static ApiClient http;

  @BeforeAll
  static void start() throws IOException {
    Path data =
        Files.createTempDirectory(
            Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath(), "draw-redis");
    redis = EmbeddedRedis.start(data);
    service =
        new SpringApplicationBuilder(CommandSideApplication.class)
            .run(
                "--server.port=0",
                "--spring.data.redis.host=127.0.0.1",
                "--spring.data.redis.port=" + redis.port(),
                "--stockade.local-infra.database=" + DATABASE,
                "--stockade.decisions.enabled=true",
                "--stockade.draw.enabled=false");
    http =
        new ApiClient(Integer.parseInt(service.getEnvironment().getProperty("local.server.port")));
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) {
      Environment environment = service.getEnvironment();
      String url = environment.getProperty("spring.datasource.url");
      String user = environment.getProperty("spring.datasource.username");
      String password = environment.getProperty("spring.datasource.password");
      service.close();
      try (Connection connection = DriverManager.getConnection(url, user, password);
          Statement statement = connection.createStatement()) {
        statement.execute("drop database if exists `" + DATABASE + "`");
      }
    }
    if (redis != null) {
      redis.stop();
    }
  }

  @Test
  void queuedReservationsAreDecidedAtTheOpeningInTheOrderTheRevealedSeedGives() throws Exception {
    DrawScenario draw =
        new DrawScenario(
            UUID.randomUUID().toString().substring(0, 8),
            // Time enough to queue 10,000 on a loaded machine; the test waits for the opening.
            redisNow().plusSeconds(90).truncatedTo(ChronoUnit.MILLIS),
            QUEUED);
    String run = draw.run;
    String a = draw.a;
    String b = draw.b;
    Instant opensAt = draw.opensAt;
    draw.register(http);
    String commitment =
        http.get("/api/skus/" + a + "/draw").getBody().get("drawCommitment").asString();
    assertThat(http.get("/api/skus/" + b + "/draw").getBody().get("drawCommitment").asString())
        .as("one draw for every SKU opening at the same instant")
        .isEqualTo(commitment);
    List<DrawScenario.Request> requests = draw.requests;
    Map<String, JsonNode> answers = draw.queueAll(List.of(http));
    answers.forEach(
        (id, answer) -> {
          assertThat(answer.get("status").asString()).as("%s: %s", id, answer).isEqualTo("QUEUED");
          assertThat(answer.get("drawCommitment").asString()).isEqualTo(commitment);
          assertThat(Instant.parse(answer.get("opensAt").asString())).isEqualTo(opensAt);
        });
    assertThat(redisNow()).as("every reservation queued before the opening").isBefore(opensAt);

    // A repeat is 202 again; the id with other content 422; nothing was taken.
    DrawScenario.Request first = requests.get(0);
    ResponseEntity<JsonNode> repeat = http.send(HttpMethod.POST, "/api/reservations", first.body());
    assertThat(repeat.getStatusCode().value()).isEqualTo(202);
    assertThat(
            http.send(
                    HttpMethod.POST,
                    "/api/reservations",
                    ApiClient.reservation(first.id(), first.user(), a, 5))
                .getStatusCode()
                .value())
        .isEqualTo(422);
    assertThat(counters(a)).containsEntry("available", String.valueOf(DrawScenario.STOCK_A));
    JsonNode before = http.get("/api/skus/" + a + "/draw").getBody();
    assertThat(before.get("queued").asLong()).isEqualTo(QUEUED);
    assertThat(before.get("seed").isNull()).as("the seed is secret until the draw").isTrue();
    assertThat(before.get("order").size()).isZero();

    // From the opening, until the draw is decided, arrivals wait.
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !redisNow().isBefore(opensAt));
    ResponseEntity<JsonNode> waiting =
        http.send(
            HttpMethod.POST,
            "/api/reservations",
            ApiClient.reservation("LATE-" + run, "late-user", a, 1));
    assertThat(waiting.getStatusCode().value()).as("%s", waiting.getBody()).isEqualTo(503);
    assertThat(waiting.getBody().get("type").asString()).endsWith("/draw-in-progress");
    assertThat(waiting.getHeaders().getFirst("Retry-After")).isNotNull();

    Drawing drawing = service.getBean(Drawing.class);
    assertThat(drawing.draw(opensAt)).as("the draw decided").isTrue();

    // The draw as published: the seed behind the commitment, the order the seed gives.
    JsonNode drawA = http.get("/api/skus/" + a + "/draw").getBody();
    String seed = drawA.get("seed").asString();
    List<String> orderA = new ArrayList<>();
    drawA.get("order").forEach(id -> orderA.add(id.asString()));
    assertThat(DrawSeed.check(seed, commitment, orderA)).as("the draw checks").isEmpty();
    assertThat(orderA).containsExactlyInAnyOrderElementsOf(answers.keySet());

    // Each decision as a reservation arriving then would get it, in the seed's order.
    List<String> order = draw.order(seed);
    Map<String, String> expected = draw.expected(seed);
    long admitted = expected.values().stream().filter("ADMITTED"::equals).count();
    assertThat(draw.admittedUnits(expected, a))
        .as("the queue wants more than the stock")
        .isEqualTo(DrawScenario.STOCK_A);
    assertThat(drawA.get("admitted").asLong())
        .isEqualTo(
            expected.entrySet().stream()
                .filter(e -> e.getValue().equals("ADMITTED"))
                .filter(
                    e ->
                        draw.requests.stream()
                            .anyMatch(r -> r.id().equals(e.getKey()) && r.merged().containsKey(a)))
                .count());
    assertThat(counters(a))
        .containsEntry("available", "0")
        .containsEntry("reserved", String.valueOf(DrawScenario.STOCK_A));
    assertThat(counters(b))
        .containsEntry(
            "available", String.valueOf(DrawScenario.STOCK_B - draw.admittedUnits(expected, b)));

    // A repeat of each queued reservation now answers its decision.
    draw.repeatsAnswerTheDecisions(http, expected);

    // The decision log: every queued reservation decided once, in the draw order.
    JdbcTemplate jdbc = service.getBean(JdbcTemplate.class);
    List<String> logged =
        await()
            .atMost(Duration.ofSeconds(120))
            .until(
                () ->
                    jdbc
                        .queryForList(
                            "select distinct reservation_id, sequence from gate_decision"
                                + " where sku_id in (?, ?) and reservation_id like ?"
                                + " order by sequence",
                            a,
                            b,
                            "Q-" + run + "-%")
                        .stream()
                        .map(row -> (String) row.get("reservation_id"))
                        .toList(),
                rows -> rows.size() >= QUEUED);
    assertThat(logged).as("one decision each, in the draw order").isEqualTo(order);
    assertThat(admitted).isPositive();

    // Arrivals after the draw are decided as they come.
    ResponseEntity<JsonNode> after =
        http.send(
            HttpMethod.POST,
            "/api/reservations",
            ApiClient.reservation("LATE-" + run, "late-user", b, 1));
    assertThat(after.getStatusCode().value()).as("%s", after.getBody()).isIn(201, 409);
  }

  /** The SKU's counters as the gate sees them. */
  private static Map<String, String> counters(String sku) {
    JsonNode state = http.get("/api/skus/" + sku).getBody();
    return Map.of(
        "available", state.get("available").asString(),
        "reserved", state.get("reserved").asString());
  }

  private static Instant redisNow() {
    Long millis =
        service
            .getBean(StringRedisTemplate.class)
            .execute((RedisCallback<Long>) connection -> connection.serverCommands().time());
    return Instant.ofEpochMilli(millis);
  }
}
