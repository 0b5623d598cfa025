package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.kagkarlsson.scheduler.Scheduler;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Two instances of the command side on one database and one Redis, each request of a race on its
 * own instance: Axon appends optimistically, so the one that loses the stream's next sequence
 * number must be decided again on the winner's state, never answered 500. Each race ends with one
 * winner, whose event the store holds and the gate follows.
 */
class RacingInstancesIntegrationTest {

  private static final int ROUNDS = 40;
  private static final String GATE_SKU = "stockade:{g0}:sku:";
  private static final EmbeddedRedis REDIS = RecordedEvents.ownRedis("racing-redis");

  private static ConfigurableApplicationContext first;
  private static ConfigurableApplicationContext second;
  private static ApiClient one;
  private static ApiClient other;
  private static JdbcTemplate jdbc;
  private static StringRedisTemplate redis;
  private static ExecutorService pool;

  private final String run = UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void startTwoInstances() {
    first = start();
    second = start();
    one = new ApiClient(port(first));
    other = new ApiClient(port(second));
    jdbc = first.getBean(JdbcTemplate.class);
    redis = first.getBean(StringRedisTemplate.class);
    pool = Executors.newFixedThreadPool(8);
  }

  @AfterAll
  static void stop() {
    pool.shutdownNow();
    second.close();
    first.close();
  }

  @Test
  void aConfirmRacingAReleaseOnAnotherInstanceEndsTheReservationOnce() throws Exception {
    String sku = "race-" + run;
    register(sku, 2 * ROUNDS);
    int confirmed = 0;
    for (int i = 0; i < ROUNDS; i++) {
      String id = "O-" + run + "-" + i;
      assertThat(reserve(one, id, sku, 900)).isEqualTo(201);
      // Each instance gets one end of the race, and which one goes where alternates.
      ApiClient confirming = i % 2 == 0 ? one : other;
      ApiClient releasing = i % 2 == 0 ? other : one;
      List<Integer> answers =
          race(
              () ->
                  confirming.status(HttpMethod.POST, "/api/reservations/" + id + "/confirm", null),
              () ->
                  releasing.status(HttpMethod.POST, "/api/reservations/" + id + "/release", null));
      int confirm = answers.get(0);
      int release = answers.get(1);
      assertThat(List.of(confirm, release)).as("answers of %s", id).containsOnly(200, 409);
      assertThat(confirm + release).as("one winner for %s", id).isEqualTo(200 + 409);
      assertThat(events(id, "StockConfirmed")).isEqualTo(confirm == 200 ? 1 : 0);
      assertThat(events(id, "StockReleased")).isEqualTo(release == 200 ? 1 : 0);
      // A repeat of either, on either instance, answers as the winner decided.
      assertThat(other.status(HttpMethod.POST, "/api/reservations/" + id + "/confirm", null))
          .isEqualTo(confirm);
      assertThat(one.status(HttpMethod.POST, "/api/reservations/" + id + "/release", null))
          .isEqualTo(release);
      if (confirm == 200) {
        confirmed++;
      }
    }
    awaitGate(sku, 2 * ROUNDS, confirmed);
  }

  @Test
  void aConfirmRacingTheExpiryOnAnotherInstanceEndsTheReservationOnce() throws Exception {
    String sku = "expiry-race-" + run;
    register(sku, 2 * ROUNDS);
    // The expiries run on the second instance only, when the test lets them.
    Scheduler expiries = second.getBean(Scheduler.class);
    int batch = 8;
    int confirmed = 0;
    for (int from = 0; from < ROUNDS; from += batch) {
      List<String> ids = new ArrayList<>();
      for (int i = from; i < from + batch; i++) {
        String id = "E-" + run + "-" + i;
        assertThat(reserve(one, id, sku, 1)).isEqualTo(201);
        ids.add(id);
      }
      Thread.sleep(1_100); // every hold of the batch has passed
      List<Callable<Integer>> calls = new ArrayList<>();
      calls.add(
          () -> {
            expiries.triggerCheckForDueExecutions();
            return 0;
          });
      for (String id : ids) {
        calls.add(() -> one.status(HttpMethod.POST, "/api/reservations/" + id + "/confirm", null));
      }
      List<Integer> answers = race(calls.toArray(Callable[]::new));
      for (int i = 0; i < ids.size(); i++) {
        String id = ids.get(i);
        int confirm = answers.get(i + 1);
        assertThat(confirm).as("confirm of %s", id).isIn(200, 409);
        if (confirm == 200) {
          confirmed++;
          assertThat(events(id, "StockConfirmed")).isEqualTo(1);
        }
        // Whichever won, the reservation ends once: a lost expiry finds it confirmed next time.
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> {
                  expiries.triggerCheckForDueExecutions();
                  assertThat(events(id, "StockConfirmed") + events(id, "StockReleased"))
                      .as("endings of %s", id)
                      .isEqualTo(1);
                });
        assertThat(events(id, "StockReleased")).isEqualTo(confirm == 409 ? 1 : 0);
      }
    }
    awaitGate(sku, 2 * ROUNDS, confirmed);
  }

  @Test
  void replenishmentsOfOneSkuOnTwoInstancesAreEachAppliedOnce() throws Exception {
    String sku = "replenished-" + run;
    register(sku, 0);
    long total = 0;
    for (int i = 0; i < ROUNDS; i++) {
      String a = "R-" + i + "-a";
      String b = "R-" + i + "-b";
      int quantity = i + 1;
      // Two distinct replenishments, each sent to both instances at once.
      List<Integer> answers =
          race(
              () -> replenish(one, sku, a, quantity),
              () -> replenish(other, sku, b, quantity),
              () -> replenish(other, sku, a, quantity),
              () -> replenish(one, sku, b, quantity));
      assertThat(answers).as("answers of round %d", i).containsOnly(200, 201);
      assertThat(List.of(answers.get(0), answers.get(2))).as(a).containsExactlyInAnyOrder(200, 201);
      assertThat(List.of(answers.get(1), answers.get(3))).as(b).containsExactlyInAnyOrder(200, 201);
      total += 2L * quantity;
    }
    Map<String, Integer> applied = new HashMap<>();
    jdbc.query(
        "select convert(payload using utf8mb4) from domain_event_entry"
            + " where aggregate_identifier = ? and payload_type like '%.StockReplenished'",
        row -> {
          String payload = row.getString(1);
          String id = payload.replaceAll(".*\"replenishmentId\":\"([^\"]+)\".*", "$1");
          applied.merge(id, 1, Integer::sum);
        },
        "sku:" + sku);
    assertThat(applied).hasSize(2 * ROUNDS).allSatisfy((id, times) -> assertThat(times).isOne());
    long expected = total;
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(redis.opsForHash().entries(GATE_SKU + sku))
                    .containsEntry("available", String.valueOf(expected)));
  }

  /** Runs the calls at once; their answers in order. None may fail, nor answer 500. */
  @SafeVarargs
  private static List<Integer> race(Callable<Integer>... calls) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Integer>> futures = new ArrayList<>();
    for (Callable<Integer> call : calls) {
      futures.add(
          pool.submit(
              () -> {
                start.await();
                return call.call();
              }));
    }
    start.countDown();
    List<Integer> answers = new ArrayList<>();
    for (Future<Integer> future : futures) {
      answers.add(future.get(60, TimeUnit.SECONDS));
    }
    assertThat(answers).as("no answer of the race is a server error").allMatch(code -> code < 500);
    return answers;
  }

  private static void register(String sku, int stock) {
    assertThat(one.status(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": " + stock + "}"))
        .isEqualTo(201);
  }

  private static int reserve(ApiClient http, String id, String sku, int holdSeconds) {
    return http.status(
        HttpMethod.POST,
        "/api/reservations",
        "{\"reservationId\":\""
            + id
            + "\",\"userId\":\"u-"
            + id
            + "\",\"holdSeconds\":"
            + holdSeconds
            + ",\"lines\":[{\"skuId\":\""
            + sku
            + "\",\"quantity\":2}]}");
  }

  private static int replenish(ApiClient http, String sku, String id, int quantity) {
    return http.status(
        HttpMethod.POST,
        "/api/skus/" + sku + "/replenishments",
        "{\"replenishmentId\":\"" + id + "\",\"quantity\":" + quantity + "}");
  }

  /** The gate follows the recorded endings: what was confirmed is sold, the rest available. */
  private static void awaitGate(String sku, int stock, int confirmed) {
    long sold = 2L * confirmed;
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(redis.opsForHash().entries(GATE_SKU + sku))
                    .containsEntry("sold", String.valueOf(sold))
                    .containsEntry("reserved", "0")
                    .containsEntry("available", String.valueOf(stock - sold)));
  }

  private static int events(String id, String type) {
    return RecordedEvents.count(jdbc, id, type);
  }

  /**
   * An instance on the test's own database and Redis: no other test's instance runs their
   * deadlines, and theirs never see these. Arguments, since they override system properties.
   */
  private static ConfigurableApplicationContext start() {
    return new SpringApplicationBuilder(CommandSideApplication.class)
        .run(
            "--server.port=0",
            "--stockade.local-infra.database=stockade_test_racing",
            "--spring.data.redis.host=127.0.0.1",
            "--spring.data.redis.port=" + REDIS.port(),
            "--stockade.expiry.polling-interval=1h");
  }

  private static int port(ConfigurableApplicationContext context) {
    return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
  }
}
