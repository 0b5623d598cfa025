package io.stockade.command.ratelimit;

import static io.stockade.command.CommandCalls.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.command.CommandCalls;
import io.stockade.command.StoreSnapshot;
import io.stockade.platform.testing.ApiClient;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The per-user rate limit over HTTP, against a real Redis and database: a burst of 3 per user and a
 * token back every 1,000 s (none comes back while a test runs), the client's limit out of the way.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.rate-limit.enabled=true",
      "stockade.rate-limit.user.capacity=3",
      "stockade.rate-limit.user.refill-per-second=0.001",
      "stockade.rate-limit.client.capacity=1000000",
      "stockade.rate-limit.client.refill-per-second=1000000"
    })
class RateLimitHttpIntegrationTest {

  private static final int BURST = 3;

  @LocalServerPort private int port;
  @Autowired private StringRedisTemplate redis;
  @Autowired private JdbcTemplate jdbc;

  private CommandCalls calls;
  private String run;
  private String sku;

  @BeforeEach
  void setUp() {
    calls = new CommandCalls(new ApiClient(port));
    run = UUID.randomUUID().toString().substring(0, 8);
    sku = "sku-" + run;
    assertThat(status(calls.register(sku, 1000))).isEqualTo(201);
  }

  @Test
  void aUserOverItsLimitGets429WithRetryAfterAndNothingChanges() {
    String user = "u-" + run;
    for (int i = 1; i <= BURST; i++) {
      assertThat(status(calls.reserve("O-" + run + "-" + i, user, sku))).isEqualTo(201);
    }
    StoreSnapshot before = StoreSnapshot.take(redis, jdbc, run);

    ResponseEntity<JsonNode> refused = calls.reserve("O-" + run + "-4", user, sku);

    assertThat(status(refused)).isEqualTo(429);
    assertThat(refused.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
    JsonNode problem = refused.getBody();
    assertThat(problem.get("type").asString())
        .isEqualTo("https://stockade.io/problems/rate-limited");
    assertThat(problem.get("title").asString()).isEqualTo("Too many requests");
    assertThat(problem.get("status").asInt()).isEqualTo(429);
    assertThat(problem.get("detail").asString()).contains(user);
    assertThat(problem.get("limit").asString()).isEqualTo("user");
    assertThat(problem.get("userId").asString()).isEqualTo(user);
    // A token comes back every 1,000 s: whole seconds, rounded up.
    assertThat(Long.parseLong(refused.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)))
        .isBetween(1L, 1000L);
    before.assertUnchanged(StoreSnapshot.take(redis, jdbc, run), jdbc, "a 429");
    assertThat(before.redis()).containsKey("stockade:ratelimit:user:{" + user + "}");

    // A retry of an admitted reservation is a request too.
    assertThat(status(calls.reserve("O-" + run + "-1", user, sku))).isEqualTo(429);
    assertThat(redis.getExpire("stockade:ratelimit:user:{" + user + "}"))
        .as("the bucket's key expires once the bucket is full again")
        .isPositive();
  }

  @Test
  void anInvalidRequestIsRefusedBeforeTheLimitAndNotCounted() {
    String user = "v-" + run;
    for (int i = 0; i < 5; i++) {
      assertThat(status(invalidReservation("I-" + run + "-" + i, user))).isEqualTo(400);
    }
    for (int i = 1; i <= BURST; i++) {
      assertThat(status(calls.reserve("O-" + run + "-" + i, user, sku))).isEqualTo(201);
    }
    assertThat(status(calls.reserve("O-" + run + "-4", user, sku))).isEqualTo(429);

    // Over its limit, a user's invalid request is still told what is wrong with it.
    assertThat(status(invalidReservation("I-" + run + "-5", user))).isEqualTo(400);
  }

  @Test
  void oneUserFloodingFromSeveralThreadsDoesNotStarveAnother() throws Exception {
    String flooder = "f-" + run;
    String other = "g-" + run;
    Map<Integer, Integer> floodStatuses = new ConcurrentHashMap<>();
    AtomicInteger sent = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    ExecutorService threads = Executors.newFixedThreadPool(8);
    List<Future<?>> flood = new ArrayList<>();
    List<Integer> otherStatuses = new ArrayList<>();
    try {
      for (int t = 0; t < 8; t++) {
        flood.add(
            threads.submit(
                () -> {
                  // Until the other user is done (or, should the test hang, a deadline).
                  while (!stop.get() && System.nanoTime() < deadline) {
                    int status =
                        status(
                            calls.reserve("F-" + run + "-" + sent.incrementAndGet(), flooder, sku));
                    floodStatuses.merge(status, 1, Integer::sum);
                  }
                }));
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> floodStatuses.containsKey(429));
      for (int i = 1; i <= BURST; i++) {
        otherStatuses.add(status(calls.reserve("G-" + run + "-" + i, other, sku)));
      }
      assertThat(flood).as("the flood still runs").noneMatch(Future::isDone);
    } finally {
      stop.set(true);
      for (Future<?> thread : flood) {
        thread.get(60, TimeUnit.SECONDS);
      }
      threads.shutdown();
    }

    assertThat(otherStatuses).containsOnly(201);
    assertThat(floodStatuses).containsOnlyKeys(201, 429).containsEntry(201, BURST);
    assertThat(redis.opsForHash().get("stockade:{g0}:sku:" + sku, "reserved"))
        .isEqualTo(String.valueOf(2 * BURST));
  }

  @Test
  void confirmationsAndReleasesAreNotCountedAgainstTheUser() {
    String user = "h-" + run;
    for (int i = 1; i <= BURST; i++) {
      assertThat(status(calls.reserve("O-" + run + "-" + i, user, sku))).isEqualTo(201);
    }
    assertThat(status(calls.reserve("O-" + run + "-4", user, sku))).isEqualTo(429);

    assertThat(status(calls.confirm("O-" + run + "-1"))).isEqualTo(200);
    assertThat(status(calls.release("O-" + run + "-2"))).isEqualTo(200);
  }

  private ResponseEntity<JsonNode> invalidReservation(String reservationId, String user) {
    return calls
        .http()
        .send(
            HttpMethod.POST,
            "/api/reservations",
            "{\"reservationId\":\""
                + reservationId
                + "\",\"userId\":\""
                + user
                + "\",\"lines\":[{\"skuId\":\""
                + sku
                + "\",\"quantity\":0}]}");
  }
}
