package io.stockade.command.ratelimit;

import static io.stockade.command.CommandCalls.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.command.CommandCalls;
import io.stockade.platform.testing.ApiClient;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/**
 * A user's bucket refills over HTTP: one request at once, then one per second. Nothing here waits
 * for a set time: the test sends until refused, then until admitted again.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.rate-limit.enabled=true",
      "stockade.rate-limit.user.capacity=1",
      "stockade.rate-limit.user.refill-per-second=1",
      "stockade.rate-limit.client.capacity=1000000",
      "stockade.rate-limit.client.refill-per-second=1000000"
    })
class RateLimitRefillHttpIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private StringRedisTemplate redis;

  @Test
  void aRefusedUserIsAdmittedAgainOnceItsBucketRefilled() {
    CommandCalls calls = new CommandCalls(new ApiClient(port));
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "sku-" + run;
    String user = "u-" + run;
    assertThat(status(calls.register(sku, 1000))).isEqualTo(201);
    AtomicInteger sent = new AtomicInteger();
    AtomicInteger admitted = new AtomicInteger();

    // Two requests in a row until the second comes within a second of the first.
    ResponseEntity<JsonNode> refused =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> {
                  count(
                      calls.reserve("O-" + run + "-" + sent.incrementAndGet(), user, sku),
                      admitted);
                  return count(
                      calls.reserve("O-" + run + "-" + sent.incrementAndGet(), user, sku),
                      admitted);
                },
                response -> status(response) == 429);
    assertThat(refused.getBody().get("limit").asString()).isEqualTo("user");
    assertThat(refused.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");

    int before = admitted.get();
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                count(
                    calls.reserve("O-" + run + "-" + sent.incrementAndGet(), user, sku), admitted),
            response -> status(response) == 201);

    assertThat(admitted.get()).isEqualTo(before + 1);
    assertThat(redis.opsForHash().get("stockade:{g0}:sku:" + sku, "reserved"))
        .isEqualTo(String.valueOf(admitted.get()));
  }

  private static ResponseEntity<JsonNode> count(
      ResponseEntity<JsonNode> response, AtomicInteger admitted) {
    int status = status(response);
    assertThat(status).isIn(201, 429);
    if (status == 201) {
      admitted.incrementAndGet();
    }
    return response;
  }
}
