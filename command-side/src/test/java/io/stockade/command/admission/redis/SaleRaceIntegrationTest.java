package io.stockade.command.admission.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.command.CommandSideApplication;
import io.stockade.command.admission.rebuild.LargeRecord;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Two command-side instances on one Redis and one database, over HTTP, at once: negative and
 * positive adjustments, pauses and resumes, limit changes and reservations of one SKU whose stock
 * runs out. Each instance's answers are the record's: the events stored are one per answered
 * change, and the gate, asked through either instance, holds what the events say (total, reserved,
 * available, never below zero, the limit and the pause of the last events).
 */
class SaleRaceIntegrationTest {

  private static final String DATABASE =
      "stockade_test_race_" + UUID.randomUUID().toString().substring(0, 8);
  private static final int STOCK = 200;

  private static EmbeddedRedis redis;
  private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

  @BeforeAll
  static void startTwoInstances() throws IOException {
    Path data =
        Files.createTempDirectory(
            Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath(), "race-redis");
    redis = EmbeddedRedis.start(data);
    for (int i = 0; i < 2; i++) {
      instances.add(
          new SpringApplicationBuilder(CommandSideApplication.class)
              .run(
                  "--server.port=0",
                  "--spring.data.redis.host=127.0.0.1",
                  "--spring.data.redis.port=" + redis.port(),
                  "--stockade.local-infra.database=" + DATABASE));
    }
  }

  @AfterAll
  static void stop() throws SQLException {
    LargeRecord.dropDatabase(instances, DATABASE);
    if (redis != null) {
      redis.stop();
    }
  }

  @Test
  void adjustmentsPausesLimitsAndReservationsOnTwoInstancesEndAsTheEventsSay() throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "race-" + run;
    assertThat(
            http(0).status(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": " + STOCK + "}"))
        .isEqualTo(201);

    Map<String, Integer> adjusted = new ConcurrentHashMap<>();
    Map<String, Integer> refusedAdjustments = new ConcurrentHashMap<>();
    Map<String, Integer> reserved = new ConcurrentHashMap<>();
    Map<String, String> refusedReservations = new ConcurrentHashMap<>();
    AtomicLong pauses = new AtomicLong();
    ExecutorService threads = Executors.newFixedThreadPool(9);
    List<Future<?>> work = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      int instance = t;
      work.add(
          threads.submit(
              () -> {
                for (int i = 0; i < 20; i++) {
                  String id = "A-" + run + "-" + instance + "-" + i;
                  int quantity = i % 2 == 0 ? -5 : 1;
                  ResponseEntity<JsonNode> answer =
                      untilAnswered(
                          instance,
                          HttpMethod.POST,
                          "/api/skus/" + sku + "/adjustments",
                          "{\"adjustmentId\": \""
                              + id
                              + "\", \"quantity\": "
                              + quantity
                              + ", \"reason\": \"CORRECTION\"}");
                  int status = answer.getStatusCode().value();
                  if (status == 201) {
                    adjusted.put(id, quantity);
                  } else {
                    assertThat(status).as(String.valueOf(answer.getBody())).isEqualTo(409);
                    assertThat(problem(answer)).isEqualTo("insufficient-stock");
                    refusedAdjustments.put(id, quantity);
                  }
                }
                return null;
              }));
      work.add(
          threads.submit(
              () -> {
                for (int i = 0; i < 10; i++) {
                  assertThat(
                          untilAnswered(
                                  instance,
                                  HttpMethod.POST,
                                  "/api/skus/" + sku + "/pause",
                                  "{\"reason\": \"check " + i + "\"}")
                              .getStatusCode()
                              .value())
                      .isEqualTo(200);
                  pauses.incrementAndGet();
                  assertThat(
                          untilAnswered(
                                  instance, HttpMethod.POST, "/api/skus/" + sku + "/resume", null)
                              .getStatusCode()
                              .value())
                      .isEqualTo(200);
                }
                return null;
              }));
      for (int r = 0; r < 2; r++) {
        int reserver = 2 * instance + r;
        work.add(
            threads.submit(
                () -> {
                  for (int i = 0; i < 60; i++) {
                    String id = "O-" + run + "-" + reserver + "-" + i;
                    int units = 1 + i % 2;
                    ResponseEntity<JsonNode> answer =
                        untilAnswered(
                            instance,
                            HttpMethod.POST,
                            "/api/reservations",
                            ApiClient.reservation(id, "u-" + reserver + "-" + i, sku, units));
                    int status = answer.getStatusCode().value();
                    if (status == 201) {
                      reserved.put(id, units);
                    } else {
                      assertThat(status).as(String.valueOf(answer.getBody())).isEqualTo(409);
                      refusedReservations.put(id, problem(answer));
                    }
                  }
                  return null;
                }));
      }
    }
    work.add(
        threads.submit(
            () -> {
              for (int i = 0; i < 10; i++) {
                String limit = i == 9 ? "7" : i % 2 == 0 ? "50" : "null";
                assertThat(
                        untilAnswered(
                                i % 2,
                                HttpMethod.PUT,
                                "/api/skus/" + sku + "/limit",
                                "{\"perUserLimit\": " + limit + "}")
                            .getStatusCode()
                            .value())
                    .isEqualTo(200);
              }
              return null;
            }));
    for (Future<?> done : work) {
      done.get(5, TimeUnit.MINUTES);
    }
    threads.shutdown();

    assertThat(refusedReservations.values()).isSubsetOf("insufficient-stock", "sale-paused");
    assertThat(refusedReservations.values())
        .as("the stock ran out during the race")
        .contains("insufficient-stock");

    System.out.printf(
        "SaleRaceIntegrationTest: %d adjustments (%d refused), %d reservations admitted, %d refused"
            + " (%d while paused)%n",
        adjusted.size(),
        refusedAdjustments.size(),
        reserved.size(),
        refusedReservations.size(),
        refusedReservations.values().stream().filter("sale-paused"::equals).count());

    // The record: one event per change answered, none for a refusal.
    JdbcTemplate jdbc = instances.get(0).getBean(JdbcTemplate.class);
    assertThat(events(jdbc, "sku:" + sku, "StockAdjusted")).isEqualTo(adjusted.size());
    // A pause while paused (the other instance's) is answered 200 and stores nothing: pauses and
    // resumes alternate in the SKU's stream, and the last is a resume (each thread's last call).
    List<String> pausing =
        jdbc.queryForList(
            "select payload_type from domain_event_entry where aggregate_identifier = ?"
                + " and (payload_type like '%.SalePaused' or payload_type like '%.SaleResumed')"
                + " order by sequence_number",
            String.class, "sku:" + sku);
    assertThat(pausing).isNotEmpty().hasSizeLessThanOrEqualTo((int) (2 * pauses.get()));
    for (int i = 0; i < pausing.size(); i++) {
      assertThat(pausing.get(i)).endsWith(i % 2 == 0 ? ".SalePaused" : ".SaleResumed");
    }
    assertThat(pausing.get(pausing.size() - 1)).endsWith(".SaleResumed");
    assertThat(
            jdbc.queryForObject(
                "select count(*) from domain_event_entry where aggregate_identifier like ?"
                    + " and payload_type like '%.StockReserved'",
                Long.class, "reservation:O-" + run + "-%"))
        .isEqualTo(reserved.size());

    long total = STOCK + adjusted.values().stream().mapToLong(Integer::longValue).sum();
    long units = reserved.values().stream().mapToLong(Integer::longValue).sum();
    // The gate, through either instance: what the events say. Every take recorded.
    for (int instance = 0; instance < 2; instance++) {
      JsonNode state = http(instance).get("/api/skus/" + sku).getBody();
      assertThat(state.get("total").asLong()).as("total through %d", instance).isEqualTo(total);
      assertThat(state.get("reserved").asLong()).isEqualTo(units);
      assertThat(state.get("sold").asLong()).isZero();
      assertThat(state.get("available").asLong()).isEqualTo(total - units).isNotNegative();
      assertThat(state.get("perUserLimit").asInt()).isEqualTo(7);
      assertThat(state.get("sale").get("state").asString()).isEqualTo("OPEN");
    }
    StringRedisTemplate gate = instances.get(0).getBean(StringRedisTemplate.class);
    GateLayout layout = instances.get(0).getBean(GateLayout.class);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> gate.opsForZSet().size(layout.of(sku).adjustmentsPending()) == 0);
    Map<Object, Object> recorded = gate.opsForHash().entries(layout.of(sku).adjustments(sku));
    adjusted.forEach(
        (id, quantity) ->
            assertThat((String) recorded.get(id))
                .as("adjustment %s in the gate", id)
                .isEqualTo(quantity + " " + Math.abs(quantity) + " RECORDED"));
    refusedAdjustments.keySet().forEach(id -> assertThat(recorded).doesNotContainKey(id));
  }

  private static long events(JdbcTemplate jdbc, String stream, String type) {
    return jdbc.queryForObject(
        "select count(*) from domain_event_entry where aggregate_identifier = ?"
            + " and payload_type like ?",
        Long.class,
        stream,
        "%." + type);
  }

  /** The answer, once it is not a 503 (the same request again: each is idempotent). */
  private static ResponseEntity<JsonNode> untilAnswered(
      int instance, HttpMethod method, String path, String body) {
    while (true) {
      ResponseEntity<JsonNode> answer = http(instance).send(method, path, body);
      if (answer.getStatusCode().value() != 503) {
        return answer;
      }
    }
  }

  private static String problem(ResponseEntity<JsonNode> answer) {
    String type = answer.getBody().get("type").asString();
    return type.substring(type.lastIndexOf('/') + 1);
  }

  private static ApiClient http(int instance) {
    return new ApiClient(
        Integer.parseInt(
            instances.get(instance).getEnvironment().getProperty("local.server.port")));
  }
}
