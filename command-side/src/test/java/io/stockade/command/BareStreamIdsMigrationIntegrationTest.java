package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.modelling.command.AggregateScopeDescriptor;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * An event store written before each aggregate type had its own namespace of streams: its events
 * carry the bare reservation and SKU ids as aggregate identifiers, and its pending expiry deadlines
 * name the bare reservation id. Started on it, the service migrates both, and those reservations,
 * SKUs and deadlines go on working.
 */
class BareStreamIdsMigrationIntegrationTest {

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final String database = "stockade_test_bare_" + run;
  private final EmbeddedRedis redis = RecordedEvents.ownRedis("bare-ids-redis");

  @Test
  void theStreamsAndDeadlinesOfThePreviousVersionAreMigratedAndLoad() {
    String sku = "S-" + run;
    String held = "Y-" + run;
    String expiring = "Z-" + run;
    String url;
    try (ConfigurableApplicationContext previous = start("1h")) {
      url = previous.getEnvironment().getProperty("spring.datasource.url");
      EventStore events = previous.getBean(EventStore.class);
      TransactionTemplate transaction =
          new TransactionTemplate(previous.getBean(PlatformTransactionManager.class));
      Instant now = Instant.now();
      Instant expiry = now.plusSeconds(3);
      // Stored as the previous version's aggregates stored them: the bare id is the stream.
      append(events, transaction, "Sku", sku, new SkuRegistered(sku, 10, null));
      append(events, transaction, "Reservation", held, reserved(held, sku, now, 900));
      append(events, transaction, "Reservation", expiring, reserved(expiring, sku, now, 3));
      // Its expiry, scheduled as that version's reservation scheduled it: in its bare scope.
      previous
          .getBean(DeadlineManager.class)
          .schedule(
              expiry,
              "reservation-expiry",
              null,
              new AggregateScopeDescriptor("Reservation", expiring));
      // What that version's database did not have yet: this version's migrations.
      previous
          .getBean(JdbcTemplate.class)
          .update("delete from flyway_history_command_side where version in ('1.1', '102')");
    }

    try (ConfigurableApplicationContext current = start("1s")) {
      JdbcTemplate jdbc = current.getBean(JdbcTemplate.class);
      assertThat(
              jdbc.queryForList(
                  "select distinct aggregate_identifier from domain_event_entry"
                      + " where aggregate_identifier like ? order by aggregate_identifier",
                  String.class,
                  "%" + run))
          .containsExactly("reservation:" + held, "reservation:" + expiring, "sku:" + sku);
      ApiClient http = new ApiClient(port(current));

      assertThat(http.status(HttpMethod.POST, "/api/reservations/" + held + "/confirm", null))
          .as("confirming a reservation of the previous version")
          .isEqualTo(200);
      JsonNode replenished =
          http.send(
                  HttpMethod.POST,
                  "/api/skus/" + sku + "/replenishments",
                  "{\"replenishmentId\":\"R-1\",\"quantity\":5}")
              .getBody();
      assertThat(replenished.get("totalStock").asLong())
          .as("replenishing a SKU of the previous version")
          .isEqualTo(15);
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(
                          jdbc.queryForList(
                              "select convert(payload using utf8mb4) from domain_event_entry"
                                  + " where aggregate_identifier = ?"
                                  + " and payload_type like '%.StockReleased'",
                              String.class, "reservation:" + expiring))
                      .as("the previous version's expiry deadline, fired")
                      .singleElement()
                      .asString()
                      .contains("\"reason\":\"EXPIRED\""));
      assertThat(
              jdbc.queryForObject(
                  "select count(*) from domain_event_entry where aggregate_identifier like ?"
                      + " and aggregate_identifier not like 'reservation:%'"
                      + " and aggregate_identifier not like 'sku:%'",
                  Integer.class, "%" + run))
          .as("streams outside the namespaces")
          .isZero();
    } finally {
      redis.stop();
    }
    new JdbcTemplate(new DriverManagerDataSource(url, "root", ""))
        .execute("drop database " + database);
  }

  private static StockReserved reserved(String id, String sku, Instant at, int holdSeconds) {
    return new StockReserved(
        id, "u-" + id, List.of(new ReservationLine(sku, 2)), at, at.plusSeconds(holdSeconds), 1, 0);
  }

  private static void append(
      EventStore events, TransactionTemplate transaction, String type, String id, Object payload) {
    transaction.executeWithoutResult(
        status ->
            events.publish(
                new GenericDomainEventMessage<>(
                    type, id, 0, payload, Map.of(), UUID.randomUUID().toString(), Instant.now())));
  }

  /** An instance on this test's own database and Redis (arguments override system properties). */
  private ConfigurableApplicationContext start(String expiryPolling) {
    return new SpringApplicationBuilder(CommandSideApplication.class)
        .run(
            "--server.port=0",
            "--stockade.local-infra.database=" + database,
            "--spring.data.redis.host=127.0.0.1",
            "--spring.data.redis.port=" + redis.port(),
            "--stockade.expiry.polling-interval=" + expiryPolling);
  }

  private static int port(ConfigurableApplicationContext context) {
    return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
  }
}
