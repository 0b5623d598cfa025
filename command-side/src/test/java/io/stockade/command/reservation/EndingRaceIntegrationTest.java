package io.stockade.command.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.command.RecordedEvents;
import io.stockade.platform.testing.ApiClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Confirm, release and expiry racing on the same reservations: each ends exactly once, and the
 * gate's counters end up where the recorded outcomes put them.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class EndingRaceIntegrationTest {

  private static final int RESERVATIONS = 20;

  @LocalServerPort private int port;
  @Autowired private JdbcTemplate jdbc;
  @Autowired private StringRedisTemplate redis;

  @Test
  void confirmReleaseAndExpiryRacingEndEachReservationOnce() throws Exception {
    ApiClient http = new ApiClient(port);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "race-" + run;
    List<String> ids = reservations(http, run, sku);

    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> answers = new ArrayList<>();
      for (String id : ids) {
        for (String action : List.of("confirm", "release", "confirm", "release")) {
          answers.add(
              pool.submit(
                  () -> {
                    start.await();
                    // Around the one-second hold, so that the expiry joins the race.
                    Thread.sleep(800 + (long) (Math.random() * 400));
                    return http.send(
                            HttpMethod.POST, "/api/reservations/" + id + "/" + action, null)
                        .getStatusCode()
                        .value();
                  }));
        }
      }
      start.countDown();
      for (Future<Integer> answer : answers) {
        assertThat(answer.get(60, TimeUnit.SECONDS)).isIn(200, 409);
      }
    } finally {
      pool.shutdownNow();
    }

    int confirmed = 0;
    for (String id : ids) {
      int confirmations = count(id, "StockConfirmed");
      int releases = count(id, "StockReleased");
      assertThat(confirmations + releases).as("endings of %s", id).isEqualTo(1);
      confirmed += confirmations;
    }
    long sold = 2L * confirmed;
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              Map<Object, Object> counters = redis.opsForHash().entries("stockade:{g0}:sku:" + sku);
              assertThat(counters)
                  .containsEntry("sold", String.valueOf(sold))
                  .containsEntry("reserved", "0")
                  .containsEntry("available", String.valueOf(100 - sold));
            });
  }

  /**
   * Extensions, partial confirmations, releases and the expiry racing: each reservation ends once,
   * either confirmed in part (one unit sold, the other given back by the same step) or released; no
   * extension is recorded after its end; the gate's counters and holders match the record.
   */
  @Test
  void extensionsPartialConfirmationsReleasesAndExpiryRacingEndEachReservationOnce()
      throws Exception {
    ApiClient http = new ApiClient(port);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "race-" + run;
    List<String> ids = reservations(http, run, sku);
    String partly = "{\"lines\":[{\"skuId\":\"" + sku + "\",\"quantity\":1}]}";

    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> answers = new ArrayList<>();
      for (String id : ids) {
        for (String action : List.of("extend", "confirm", "release", "extend", "confirm")) {
          String body =
              switch (action) {
                case "extend" -> "{\"holdSeconds\": 2}";
                case "confirm" -> partly;
                default -> null;
              };
          answers.add(
              pool.submit(
                  () -> {
                    start.await();
                    // Around the one-second hold, so that the expiry joins the race.
                    Thread.sleep(800 + (long) (Math.random() * 400));
                    return http.send(
                            HttpMethod.POST, "/api/reservations/" + id + "/" + action, body)
                        .getStatusCode()
                        .value();
                  }));
        }
      }
      start.countDown();
      for (Future<Integer> answer : answers) {
        assertThat(answer.get(60, TimeUnit.SECONDS)).isIn(200, 409);
      }
    } finally {
      pool.shutdownNow();
    }

    // Every reservation ends, by request or, unpaid, by its (perhaps extended) expiry.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              for (String id : ids) {
                assertThat(count(id, "StockConfirmed") + count(id, "StockReleased"))
                    .as("ended: %s", id)
                    .isPositive();
              }
            });
    int confirmed = 0;
    for (String id : ids) {
      int confirmations = count(id, "StockConfirmed");
      List<String> releases =
          jdbc.queryForList(
              "select convert(payload using utf8mb4) from domain_event_entry"
                  + " where aggregate_identifier = ? and payload_type like '%.StockReleased'",
              String.class, "reservation:" + id);
      assertThat(releases).as("releases of %s", id).hasSize(1);
      if (confirmations == 1) {
        assertThat(releases.get(0)).contains("\"reason\":\"NOT_CONFIRMED\"");
      } else {
        assertThat(confirmations).isZero();
        assertThat(releases.get(0)).doesNotContain("NOT_CONFIRMED");
      }
      Integer lastExtension =
          jdbc.queryForObject(
              "select max(sequence_number) from domain_event_entry"
                  + " where aggregate_identifier = ? and payload_type like '%.ReservationExtended'",
              Integer.class, "reservation:" + id);
      Integer ending =
          jdbc.queryForObject(
              "select min(sequence_number) from domain_event_entry"
                  + " where aggregate_identifier = ?"
                  + " and (payload_type like '%.StockConfirmed' or payload_type like"
                  + " '%.StockReleased')",
              Integer.class, "reservation:" + id);
      if (lastExtension != null) {
        assertThat(lastExtension).as("extended before it ended: %s", id).isLessThan(ending);
      }
      confirmed += confirmations;
    }
    long sold = confirmed;
    int buyers = confirmed;
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              Map<Object, Object> counters = redis.opsForHash().entries("stockade:{g0}:sku:" + sku);
              assertThat(counters)
                  .containsEntry("sold", String.valueOf(sold))
                  .containsEntry("reserved", "0")
                  .containsEntry("available", String.valueOf(100 - sold));
              assertThat(redis.opsForHash().entries("stockade:{g0}:sku:" + sku + ":holders"))
                  .as("one unit held by each buyer, none by the others")
                  .hasSize(buyers)
                  .allSatisfy((user, held) -> assertThat(held).isEqualTo("1"));
            });
  }

  /** A SKU of 100 units and reservations of 2 of them, each of its own user, held for 1 s. */
  private static List<String> reservations(ApiClient http, String run, String sku) {
    http.send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 100}");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < RESERVATIONS; i++) {
      String id = "O-" + run + "-" + i;
      ids.add(id);
      http.send(
          HttpMethod.POST,
          "/api/reservations",
          "{\"reservationId\":\""
              + id
              + "\",\"userId\":\"u-"
              + i
              + "\",\"holdSeconds\":1,\"lines\":[{\"skuId\":\""
              + sku
              + "\",\"quantity\":2}]}");
    }
    return ids;
  }

  private int count(String reservationId, String type) {
    return RecordedEvents.count(jdbc, reservationId, type);
  }
}
