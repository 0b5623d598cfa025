package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.command.CommandSideApplication;
import io.stockade.command.admission.rebuild.LargeRecord;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.TestTokens;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * A sale opening with 200 clients already hammering its SKU, over HTTP, on a Redis and a database
 * of the test's own with the decision log on: before {@code opensAt} by the gate's clock (Redis
 * {@code TIME}) every reservation is refused {@code sale-not-open}, from it the stock is sold
 * exactly, and the decision log shows every refusal before the first admission: every answer's
 * decision once, and a decision of its own for a request answered 503 that had reached the gate
 * (under load a Redis reply can outlast the service's timeout: the gate closes until it has checked
 * its epoch, and the client's retry of the same request is decided anew). How long after {@code
 * opensAt} the first admission was decided is printed (the decision's stream id: the partition's
 * Redis clock), not asserted: a measurement, on a shared machine.
 */
class SaleOpeningIntegrationTest {

  private static final String DATABASE =
      "stockade_test_opening_" + UUID.randomUUID().toString().substring(0, 8);

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static final int CLIENTS = 200;
  private static final int STOCK = 100;

  private static EmbeddedRedis redis;
  private static ConfigurableApplicationContext service;
  private static int port;

  @BeforeAll
  static void start() throws IOException {
    Path data =
        Files.createTempDirectory(
            Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath(), "opening-redis");
    redis = EmbeddedRedis.start(data);
    service =
        new SpringApplicationBuilder(CommandSideApplication.class)
            .run(
                "--server.port=0",
                "--server.tomcat.threads.max=" + (CLIENTS + 20),
                "--spring.data.redis.host=127.0.0.1",
                "--spring.data.redis.port=" + redis.port(),
                "--stockade.local-infra.database=" + DATABASE,
                "--stockade.decisions.enabled=true",
                "--stockade.decisions.drain-interval=200ms");
    port = Integer.parseInt(service.getEnvironment().getProperty("local.server.port"));
  }

  @AfterAll
  static void stop() throws SQLException {
    if (service != null) {
      LargeRecord.dropDatabase(List.of(service), DATABASE);
    }
    if (redis != null) {
      redis.stop();
    }
  }

  @Test
  void nothingIsAdmittedBeforeTheOpeningAndTheStockIsSoldExactlyFromIt() throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "opening-" + run;
    Instant opensAt = redisNow().plusSeconds(5).truncatedTo(ChronoUnit.MILLIS);
    HttpClient http =
        HttpClient.newBuilder()
            .executor(Executors.newFixedThreadPool(8))
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    HttpResponse<String> registered =
        send(
            http,
            "PUT",
            "/api/skus/" + sku,
            "{\"initialStock\": " + STOCK + ", \"sale\": {\"opensAt\": \"" + opensAt + "\"}}",
            TestTokens.ALL_ROLES);
    assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);

    // Each client sends reservations of one unit, one after another, until it is admitted or
    // told the stock is gone; a 503 (the event store or Redis slow under the load) is retried as
    // is.
    Map<String, String> answers = new ConcurrentHashMap<>();
    Map<String, Integer> unavailable = new ConcurrentHashMap<>();
    AtomicInteger early = new AtomicInteger();
    CountDownLatch ready = new CountDownLatch(CLIENTS);
    ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
    List<Future<?>> running = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      String user = "buyer-" + c;
      running.add(
          clients.submit(
              () -> {
                ready.countDown();
                for (int attempt = 0; ; attempt++) {
                  String id = "OP-" + run + "-" + user + "-" + attempt;
                  String answer = reserveUntilAnswered(http, id, user, sku, unavailable);
                  answers.put(id, answer);
                  if (answer.equals("sale-not-open")) {
                    early.incrementAndGet();
                    continue;
                  }
                  assertThat(answer).isIn("201", "insufficient-stock");
                  return null;
                }
              }));
    }
    assertThat(ready.await(60, TimeUnit.SECONDS)).isTrue();
    for (Future<?> client : running) {
      client.get(5, TimeUnit.MINUTES);
    }
    clients.shutdown();

    long admitted = answers.values().stream().filter("201"::equals).count();
    assertThat(admitted).as("the stock, exactly").isEqualTo(STOCK);
    assertThat(early.get()).as("clients were hammering before the opening").isPositive();
    assertThat(service.getBean(StringRedisTemplate.class).opsForHash().entries(counters(sku)))
        .containsEntry("available", "0")
        .containsEntry("reserved", String.valueOf(STOCK));

    // The decision log: each answer's decision once, in the gate's order; besides, at most one
    // refusal for each 503 a request was answered before it was answered for good.
    JdbcTemplate jdbc = service.getBean(JdbcTemplate.class);
    List<Map<String, Object>> log =
        await()
            .atMost(Duration.ofSeconds(120))
            .until(
                () ->
                    jdbc.queryForList(
                        "select reservation_id, outcome, decided_at from gate_decision"
                            + " where sku_id = ? order by decided_at, entry_seq",
                        sku),
                rows -> byId(settled(rows)).keySet().containsAll(answers.keySet()));
    List<Map<String, Object>> settled = settled(log);
    Map<String, List<String>> decided = byId(settled);
    assertThat(decided.keySet()).as("the reservations decided").isEqualTo(answers.keySet());
    answers.forEach(
        (id, answer) -> {
          List<String> outcomes = decided.get(id);
          String expected =
              switch (answer) {
                case "201" -> "ADMITTED";
                case "sale-not-open" -> "SALE_NOT_OPEN";
                default -> "INSUFFICIENT_STOCK";
              };
          assertThat(outcomes.get(outcomes.size() - 1))
              .as("the decision answered for %s (%s)", id, outcomes)
              .isEqualTo(expected);
          assertThat(outcomes.size() - 1)
              .as("decisions of %s besides its answer (%s): one at most per 503", id, outcomes)
              .isLessThanOrEqualTo(unavailable.getOrDefault(id, 0));
          assertThat(outcomes.subList(0, outcomes.size() - 1))
              .as("decisions of %s answered 503 (an admission is never decided twice)", id)
              .doesNotContain("ADMITTED");
        });
    int firstAdmitted = -1;
    for (int i = 0; i < settled.size(); i++) {
      if (settled.get(i).get("outcome").equals("ADMITTED")) {
        firstAdmitted = i;
        break;
      }
    }
    assertThat(firstAdmitted).isNotNegative();
    List<String> before =
        settled.subList(0, firstAdmitted).stream().map(row -> (String) row.get("outcome")).toList();
    List<String> after =
        settled.subList(firstAdmitted, settled.size()).stream()
            .map(row -> (String) row.get("outcome"))
            .toList();
    assertThat(Set.copyOf(before))
        .as("decided before the first admission")
        .isEqualTo(before.isEmpty() ? Set.of() : Set.of("SALE_NOT_OPEN"));
    assertThat(after).as("decided from the first admission").doesNotContain("SALE_NOT_OPEN");
    assertThat(before.size())
        .as("refusals before the opening: each answered one, and those answered 503")
        .isBetween(early.get(), early.get() + unavailable.values().stream().mapToInt(n -> n).sum());

    long first = ((Number) settled.get(firstAdmitted).get("decided_at")).longValue();
    long lastEarly =
        firstAdmitted == 0
            ? -1
            : ((Number) settled.get(firstAdmitted - 1).get("decided_at")).longValue();
    // The pace requests reached the gate at before the opening: the first admission cannot come
    // sooner after opensAt than the next request does.
    double pace =
        firstAdmitted < 2
            ? -1
            : (double) (lastEarly - ((Number) settled.get(0).get("decided_at")).longValue())
                / (firstAdmitted - 1);
    System.out.printf(
        "SaleOpeningIntegrationTest: %d clients, %d refused before the opening (one every %.2f ms"
            + " on average); the first admission decided %d ms after opensAt (the last refusal %d"
            + " ms before it); %d admitted, %d refused for stock%n",
        CLIENTS,
        early.get(),
        pace,
        first - opensAt.toEpochMilli(),
        lastEarly < 0 ? -1 : opensAt.toEpochMilli() - lastEarly,
        admitted,
        answers.size() - admitted - early.get());
  }

  /**
   * The decisions that stand: an admission withdrawn (its event could not be stored in time; the
   * client's retry is decided anew) is left out with its withdrawal.
   */
  private static List<Map<String, Object>> settled(List<Map<String, Object>> log) {
    Map<String, Integer> withdrawn = new ConcurrentHashMap<>();
    log.stream()
        .filter(row -> "WITHDRAWN".equals(row.get("outcome")))
        .forEach(row -> withdrawn.merge((String) row.get("reservation_id"), 1, Integer::sum));
    List<Map<String, Object>> settled = new ArrayList<>();
    for (Map<String, Object> row : log) {
      String id = (String) row.get("reservation_id");
      if ("WITHDRAWN".equals(row.get("outcome"))) {
        continue;
      }
      if ("ADMITTED".equals(row.get("outcome")) && withdrawn.getOrDefault(id, 0) > 0) {
        withdrawn.merge(id, -1, Integer::sum);
        continue;
      }
      settled.add(row);
    }
    return settled;
  }

  /** The outcomes of each reservation's decisions, in the order given. */
  private static Map<String, List<String>> byId(List<Map<String, Object>> rows) {
    Map<String, List<String>> outcomes = new java.util.HashMap<>();
    for (Map<String, Object> row : rows) {
      outcomes
          .computeIfAbsent((String) row.get("reservation_id"), id -> new ArrayList<>())
          .add((String) row.get("outcome"));
    }
    return outcomes;
  }

  /**
   * The problem's code of a 409, or the status of any other final answer; the 503s met on the way
   * counted in {@code unavailable}.
   */
  private static String reserveUntilAnswered(
      HttpClient http, String id, String user, String sku, Map<String, Integer> unavailable)
      throws Exception {
    String body = ApiClient.reservation(id, user, sku, 1);
    while (true) {
      HttpResponse<String> answer =
          send(http, "POST", "/api/reservations", body, TestTokens.ALL_ROLES);
      if (answer.statusCode() == 503) {
        unavailable.merge(id, 1, Integer::sum);
        continue;
      }
      if (answer.statusCode() == 409) {
        String type = JSON.readTree(answer.body()).get("type").asString();
        return type.substring(type.lastIndexOf('/') + 1);
      }
      assertThat(answer.statusCode()).as(answer.body()).isIn(200, 201);
      return "201";
    }
  }

  private static HttpResponse<String> send(
      HttpClient http, String method, String path, String body, String token) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(60))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String counters(String sku) {
    return service.getBean(GateLayout.class).counters(sku);
  }

  private static Instant redisNow() {
    Long millis =
        service
            .getBean(StringRedisTemplate.class)
            .execute((RedisCallback<Long>) connection -> connection.serverCommands().time());
    return Instant.ofEpochMilli(millis);
  }
}
