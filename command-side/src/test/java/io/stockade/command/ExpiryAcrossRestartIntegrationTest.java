package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.platform.testing.ApiClient;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An expiry deadline is a row in the database, not a timer in the service: a reservation whose
 * service stops before its hold passes is still released once a service runs again.
 */
class ExpiryAcrossRestartIntegrationTest {

  @Test
  void aPendingExpirySurvivesARestartOfTheService() {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "sku-" + run;
    String reservation = "O-" + run;

    try (ConfigurableApplicationContext first = start()) {
      ApiClient http = new ApiClient(port(first));
      http.send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 4}");
      assertThat(
              http.send(
                      HttpMethod.POST,
                      "/api/reservations",
                      "{\"reservationId\":\""
                          + reservation
                          + "\",\"userId\":\"u-1\",\"holdSeconds\":3,\"lines\":[{\"skuId\":\""
                          + sku
                          + "\",\"quantity\":3}]}")
                  .getStatusCode()
                  .value())
          .isEqualTo(201);
    }

    try (ConfigurableApplicationContext second = start()) {
      JdbcTemplate jdbc = second.getBean(JdbcTemplate.class);
      StringRedisTemplate redis = second.getBean(StringRedisTemplate.class);
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(
                          jdbc.queryForObject(
                              "select count(*) from domain_event_entry"
                                  + " where aggregate_identifier = ?"
                                  + " and payload_type like '%.StockReleased'",
                              Integer.class, ReservationEvent.streamId(reservation)))
                      .isEqualTo(1));
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(redis.opsForHash().entries("stockade:{g0}:sku:" + sku))
                      .containsEntry("available", "4")
                      .containsEntry("reserved", "0"));
    }
  }

  private static ConfigurableApplicationContext start() {
    return new SpringApplicationBuilder(CommandSideApplication.class)
        .properties("server.port=0")
        .run();
  }

  private static int port(ConfigurableApplicationContext context) {
    return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
  }
}
