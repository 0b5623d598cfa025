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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
  private static final int STOCK_A = 1_000;
  private static final int STOCK_B = 300;
  private static final int LIMIT_A = 3;
  private static final int LIMIT_B = 2;

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

  /** One queued request: its lines as sent (a SKU may come twice), and its user. */
  private record Request(String id, String user, List<String[]> lines) {

    String body() {
      StringBuilder json =
          new StringBuilder("{\"reservationId\": \"" + id + "\", \"userId\": \"" + user + "\",")
              .append(" \"lines\": [");
      for (int i = 0; i < lines.size(); i++) {
        json.append(i == 0 ? "" : ", ")
            .append("{\"skuId\": \"")
            .append(lines.get(i)[0])
            .append("\", \"quantity\": ")
            .append(lines.get(i)[1])
            .append('}');
      }
      return json.append("]}").toString();
    }

    /** The merged lines: quantity per SKU. */
    Map<String, Integer> merged() {
      Map<String, Integer> merged = new LinkedHashMap<>();
      for (String[] line : lines) {
        merged.merge(line[0], Integer.parseInt(line[1]), Integer::sum);
      }
      return merged;
    }
  }

  @Test
  void queuedReservationsAreDecidedAtTheOpeningInTheOrderTheRevealedSeedGives() throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String a = "draw-a-" + run;
    String b = "draw-b-" + run;
    Instant opensAt = redisNow().plusSeconds(45).truncatedTo(ChronoUnit.MILLIS);
    for (String[] sku :
        List.of(
            new String[] {a, String.valueOf(STOCK_A), String.valueOf(LIMIT_A)},
            new String[] {b, String.valueOf(STOCK_B), String.valueOf(LIMIT_B)})) {
      ResponseEntity<JsonNode> registered =
          http.send(
              HttpMethod.PUT,
              "/api/skus/" + sku[0],
              "{\"initialStock\": "
                  + sku[1]
                  + ", \"perUserLimit\": "
                  + sku[2]
                  + ", \"sale\": {\"opensAt\": \""
                  + opensAt
                  + "\", \"prequeueSeconds\": 3600}}");
      assertThat(registered.getStatusCode().value()).as("%s", registered.getBody()).isEqualTo(201);
    }
    String commitment =
        http.get("/api/skus/" + a + "/draw").getBody().get("drawCommitment").asString();
    assertThat(http.get("/api/skus/" + b + "/draw").getBody().get("drawCommitment").asString())
        .as("one draw for every SKU opening at the same instant")
        .isEqualTo(commitment);

    // Users queued two or three times; one order in ten for both SKUs; one in fifty naming A
    // twice (merged).
    List<Request> requests = new ArrayList<>();
    for (int i = 0; i < QUEUED; i++) {
      String user = "u-" + (i % 4_000);
      String quantity = i % 3 == 0 ? "2" : "1";
      List<String[]> lines = new ArrayList<>();
      lines.add(new String[] {a, quantity});
      if (i % 10 == 0) {
        lines.add(new String[] {b, "1"});
      }
      if (i % 50 == 7) {
        lines.add(new String[] {a, "1"});
      }
      requests.add(new Request("Q-" + run + "-" + i, user, lines));
    }
    Map<String, JsonNode> answers = sendAll(requests);
    answers.forEach(
        (id, answer) -> {
          assertThat(answer.get("status").asString()).as("%s: %s", id, answer).isEqualTo("QUEUED");
          assertThat(answer.get("drawCommitment").asString()).isEqualTo(commitment);
          assertThat(Instant.parse(answer.get("opensAt").asString())).isEqualTo(opensAt);
        });
    assertThat(redisNow()).as("every reservation queued before the opening").isBefore(opensAt);

    // A repeat is 202 again; the id with other content 422; nothing was taken.
    Request first = requests.get(0);
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
    assertThat(counters(a)).containsEntry("available", String.valueOf(STOCK_A));
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
    List<String> order = new DrawSeed(seed).order(requests.stream().map(Request::id).toList());
    Map<String, Request> byId = new HashMap<>();
    requests.forEach(request -> byId.put(request.id(), request));
    Map<String, Integer> available = new HashMap<>(Map.of(a, STOCK_A, b, STOCK_B));
    Map<String, Integer> limits = Map.of(a, LIMIT_A, b, LIMIT_B);
    Map<String, Integer> held = new HashMap<>();
    Map<String, String> expected = new LinkedHashMap<>();
    for (String id : order) {
      Request request = byId.get(id);
      String outcome = "ADMITTED";
      for (Map.Entry<String, Integer> line : request.merged().entrySet()) {
        if (available.get(line.getKey()) < line.getValue()) {
          outcome = "INSUFFICIENT_STOCK";
          break;
        }
        if (held.getOrDefault(request.user() + " " + line.getKey(), 0) + line.getValue()
            > limits.get(line.getKey())) {
          outcome = "PURCHASE_LIMIT_EXCEEDED";
          break;
        }
      }
      if (outcome.equals("ADMITTED")) {
        for (Map.Entry<String, Integer> line : request.merged().entrySet()) {
          available.merge(line.getKey(), -line.getValue(), Integer::sum);
          held.merge(request.user() + " " + line.getKey(), line.getValue(), Integer::sum);
        }
      }
      expected.put(id, outcome);
    }
    long admitted = expected.values().stream().filter("ADMITTED"::equals).count();
    assertThat(available.get(a)).as("the queue wants more than the stock").isZero();
    assertThat(drawA.get("admitted").asLong())
        .isEqualTo(
            expected.entrySet().stream()
                .filter(e -> e.getValue().equals("ADMITTED"))
                .filter(e -> byId.get(e.getKey()).merged().containsKey(a))
                .count());
    assertThat(counters(a))
        .containsEntry("available", "0")
        .containsEntry("reserved", String.valueOf(STOCK_A));
    assertThat(counters(b)).containsEntry("available", String.valueOf(available.get(b)));

    // A repeat of each queued reservation now answers its decision.
    Map<String, String> repeats = new ConcurrentHashMap<>();
    ExecutorService clients = Executors.newFixedThreadPool(8);
    List<Future<?>> sent = new ArrayList<>();
    for (Request request : requests) {
      sent.add(
          clients.submit(
              () -> {
                ResponseEntity<JsonNode> answer =
                    http.send(HttpMethod.POST, "/api/reservations", request.body());
                int status = answer.getStatusCode().value();
                repeats.put(
                    request.id(),
                    status == 200
                        ? answer.getBody().get("status").asString()
                        : status + " " + answer.getBody().get("type").asString());
              }));
    }
    for (Future<?> future : sent) {
      future.get(5, TimeUnit.MINUTES);
    }
    clients.shutdown();
    expected.forEach(
        (id, outcome) ->
            assertThat(repeats.get(id))
                .as("the repeat of %s", id)
                .isEqualTo(
                    switch (outcome) {
                      case "ADMITTED" -> "RESERVED";
                      case "INSUFFICIENT_STOCK" ->
                          "409 https://stockade.io/problems/insufficient-stock";
                      default -> "409 https://stockade.io/problems/purchase-limit-exceeded";
                    }));

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

  private static Map<String, JsonNode> sendAll(List<Request> requests) throws Exception {
    Map<String, JsonNode> answers = new ConcurrentHashMap<>();
    ExecutorService clients = Executors.newFixedThreadPool(16);
    List<Future<?>> sent = new ArrayList<>();
    for (Request request : requests) {
      sent.add(
          clients.submit(
              () -> {
                ResponseEntity<JsonNode> answer =
                    http.send(HttpMethod.POST, "/api/reservations", request.body());
                assertThat(answer.getStatusCode().value())
                    .as("%s: %s", request.id(), answer.getBody())
                    .isEqualTo(202);
                answers.put(request.id(), answer.getBody());
              }));
    }
    for (Future<?> future : sent) {
      future.get(5, TimeUnit.MINUTES);
    }
    clients.shutdown();
    return answers;
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
