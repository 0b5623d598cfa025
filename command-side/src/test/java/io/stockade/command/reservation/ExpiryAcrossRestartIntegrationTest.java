package io.stockade.command.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.command.CommandSideApplication;
import io.stockade.platform.testing.ApiClient;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

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

  @Test
  void anExtendedHoldExpiresAtItsNewEndAcrossARestartOfTheService() {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "sku-" + run;
    String reservation = "O-" + run;
    Instant extendedTo;

    try (ConfigurableApplicationContext first = start()) {
      ApiClient http = new ApiClient(port(first));
      http.send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\": 4}");
      http.send(
          HttpMethod.POST,
          "/api/reservations",
          "{\"reservationId\":\""
              + reservation
              + "\",\"userId\":\"u-1\",\"holdSeconds\":2,\"lines\":[{\"skuId\":\""
              + sku
              + "\",\"quantity\":3}]}");
      // Far enough that the next service starts before it: a release at the first end would come
      // before this one.
      ResponseEntity<JsonNode> extended =
          http.send(
              HttpMethod.POST,
              "/api/reservations/" + reservation + "/extend",
              "{\"holdSeconds\": 20}");
      assertThat(extended.getStatusCode().value()).isEqualTo(200);
      extendedTo = Instant.parse(extended.getBody().get("expiresAt").asString());
    }

    try (ConfigurableApplicationContext second = start()) {
      JdbcTemplate jdbc = second.getBean(JdbcTemplate.class);
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(
                          jdbc.queryForList(
                              "select convert(payload using utf8mb4) from domain_event_entry"
                                  + " where aggregate_identifier = ?"
                                  + " and payload_type like '%.StockReleased'",
                              String.class, ReservationEvent.streamId(reservation)))
                      .hasSize(1));
      String released =
          jdbc.queryForObject(
              "select convert(payload using utf8mb4) from domain_event_entry"
                  + " where aggregate_identifier = ? and payload_type like '%.StockReleased'",
              String.class, ReservationEvent.streamId(reservation));
      assertThat(released).contains("\"reason\":\"EXPIRED\"");
      assertThat(Instant.parse(released.replaceAll(".*\"releasedAt\":\"([^\"]+)\".*", "$1")))
          .as("released at the extended end, not the first one")
          .isAfterOrEqualTo(extendedTo);
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
