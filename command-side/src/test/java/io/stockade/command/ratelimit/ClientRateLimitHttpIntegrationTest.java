package io.stockade.command.ratelimit;

import static io.stockade.command.CommandCalls.status;
import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.command.CommandCalls;
import io.stockade.command.RecordedEvents;
import io.stockade.command.StoreSnapshot;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.TestTokens;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The per-client rate limit over HTTP: a burst of 5 for the calling client (the subject of the
 * tests' tokens) and a token back every 1,000 s, whatever the users; a burst of 2 for a client with
 * a setting of its own ({@code stockade.rate-limit.clients.<name>}).
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.rate-limit.enabled=true",
      "stockade.rate-limit.user.capacity=1000000",
      "stockade.rate-limit.user.refill-per-second=1000000",
      "stockade.rate-limit.client.capacity=5",
      "stockade.rate-limit.client.refill-per-second=0.001",
      "stockade.rate-limit.clients." + ClientRateLimitHttpIntegrationTest.SMALL + ".capacity=2",
      "stockade.rate-limit.clients."
          + ClientRateLimitHttpIntegrationTest.SMALL
          + ".refill-per-second=0.001"
    })
class ClientRateLimitHttpIntegrationTest {

  private static final String CLIENT_BUCKET =
      "stockade:ratelimit:client:{" + TestTokens.SUBJECT + "}";

  /** A client with a limit of its own. */
  static final String SMALL = "small-client";

  private static final String SMALL_BUCKET = "stockade:ratelimit:client:{" + SMALL + "}";

  @LocalServerPort private int port;
  @Autowired private StringRedisTemplate redis;
  @Autowired private JdbcTemplate jdbc;

  private CommandCalls calls;
  private String run;

  @BeforeEach
  void setUp() {
    calls = new CommandCalls(new ApiClient(port));
    run = UUID.randomUUID().toString().substring(0, 8);
    // A full bucket: another run of these tests on this Redis may have emptied it.
    redis.delete(CLIENT_BUCKET);
    redis.delete(SMALL_BUCKET);
  }

  @Test
  void aClientWithALimitOfItsOwnIsHeldToItAndTheOthersToTheDefault() {
    String sku = "sku-" + run;
    calls.register(sku, 100);
    CommandCalls small =
        new CommandCalls(
            new ApiClient(port).withToken(TestTokens.forSubject(SMALL, "client", "admin")));
    assertThat(status(small.reserve("S-" + run + "-1", "u-s1-" + run, sku))).isEqualTo(201);
    assertThat(status(small.reserve("S-" + run + "-2", "u-s2-" + run, sku))).isEqualTo(201);

    ResponseEntity<JsonNode> refused = small.reserve("S-" + run + "-3", "u-s3-" + run, sku);

    assertThat(status(refused)).isEqualTo(429);
    assertThat(refused.getBody().get("limit").asString()).isEqualTo("client");
    assertThat(refused.getBody().get("detail").asString())
        .contains("Client " + SMALL, "a burst of 2,");
    assertThat(RecordedEvents.count(jdbc, "S-" + run + "-3", null)).isZero();
    for (int i = 1; i <= 5; i++) {
      assertThat(status(calls.reserve("O-" + run + "-" + i, "u-" + i + "-" + run, sku)))
          .as("the default client's burst of 5, untouched by the other's")
          .isEqualTo(201);
    }
    assertThat(status(calls.reserve("O-" + run + "-6", "u-6-" + run, sku))).isEqualTo(429);
  }

  @Test
  void requestsOfManyUsersThroughOneClientHitTheClientsLimit() {
    String sku = "sku-" + run;
    assertThat(status(calls.register(sku, 100))).as("registering is not limited").isEqualTo(201);
    for (int i = 1; i <= 5; i++) {
      assertThat(status(calls.reserve("O-" + run + "-" + i, "u-" + i + "-" + run, sku)))
          .isEqualTo(201);
    }
    StoreSnapshot before = StoreSnapshot.take(redis, jdbc, run);
    Map<Object, Object> bucket = redis.opsForHash().entries(CLIENT_BUCKET);

    ResponseEntity<JsonNode> refused = calls.reserve("O-" + run + "-6", "u-6-" + run, sku);

    assertThat(status(refused)).isEqualTo(429);
    assertThat(refused.getBody().get("type").asString()).endsWith("/rate-limited");
    assertThat(refused.getBody().get("limit").asString()).isEqualTo("client");
    assertThat(refused.getBody().has("userId")).isFalse();
    assertThat(Long.parseLong(refused.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)))
        .isBetween(1L, 1000L);
    before.assertUnchanged(StoreSnapshot.take(redis, jdbc, run), jdbc, "a 429");
    assertThat(redis.opsForHash().entries(CLIENT_BUCKET)).isEqualTo(bucket);
    assertThat(redis.hasKey("stockade:ratelimit:user:{u-6-" + run + "}"))
        .as("nothing taken from the user's bucket either")
        .isFalse();
  }

  @Test
  void confirmationsAndReleasesCountAgainstTheClient() {
    String sku = "sku-" + run;
    calls.register(sku, 100);
    assertThat(status(calls.reserve("O-" + run + "-1", "u-1-" + run, sku))).isEqualTo(201);
    assertThat(status(calls.reserve("O-" + run + "-2", "u-2-" + run, sku))).isEqualTo(201);
    assertThat(status(calls.confirm("O-" + run + "-1"))).isEqualTo(200);
    assertThat(status(calls.release("O-" + run + "-2"))).isEqualTo(200);
    assertThat(status(calls.reserve("O-" + run + "-3", "u-3-" + run, sku))).isEqualTo(201);

    ResponseEntity<JsonNode> confirm = calls.confirm("O-" + run + "-3");
    ResponseEntity<JsonNode> release = calls.release("O-" + run + "-3");

    assertThat(status(confirm)).isEqualTo(429);
    assertThat(confirm.getBody().get("limit").asString()).isEqualTo("client");
    assertThat(confirm.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isNotBlank();
    assertThat(status(release)).isEqualTo(429);
    assertThat(redis.opsForHash().get("stockade:{g0}:reservation:O-" + run + "-3", "state"))
        .isEqualTo("RESERVED");
    assertThat(RecordedEvents.count(jdbc, "O-" + run + "-3", null)).isEqualTo(1);
  }
}
