package io.stockade.command.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ConfirmReservationCommand;
import io.stockade.api.reservation.ReleaseReservationCommand;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.ReserveStockCommand;
import io.stockade.api.reservation.StockReleased;
import io.stockade.command.admission.GateEpochChangedException;
import io.stockade.localinfra.EmbeddedRedis;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.config.Configuration;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * New reservations are stored without their aggregate, many to a transaction, against the real
 * database: the event is the one the aggregate would have stored, the aggregate goes on from it,
 * one bad reservation in a batch fails alone, and the expiry that comes with the event fires.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.NONE,
    properties = {
      "stockade.local-infra.database=stockade_test_storing",
      "stockade.recovery.enabled=false",
      // One writer, so that what queues while it waits forms the next batch.
      "stockade.reservation.storing.writers=1",
      "stockade.expiry.polling-interval=200ms",
      // No web server, so no warm-up (a web application's) for readiness to wait for.
      "management.endpoint.health.group.readiness.include=readinessState,gate"
    })
@DirtiesContext
class StoringReservationsIntegrationTest {

  private static final EmbeddedRedis REDIS =
      EmbeddedRedis.start(
          Path.of(System.getProperty("java.io.tmpdir"), "storing-redis-" + UUID.randomUUID()));

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(REDIS::stop));
  }

  private static final List<ReservationLine> LINES = List.of(new ReservationLine("sku-s", 2));
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @DynamicPropertySource
  static void ownRedis(DynamicPropertyRegistry properties) {
    properties.add("spring.data.redis.host", () -> "127.0.0.1");
    properties.add("spring.data.redis.port", REDIS::port);
  }

  @Autowired private StoringReservations storing;
  @Autowired private CommandGateway commands;
  @Autowired private Configuration axon;
  @Autowired private TransactionManager axonTransactions;
  @Autowired private JdbcTemplate jdbc;
  @Autowired private DataSource dataSource;

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private long epoch;

  @BeforeEach
  void gateIsOpen() {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                "OPEN"
                    .equals(
                        jdbc.queryForObject(
                            "select state from gate_epoch where id = 1", String.class)));
    epoch = jdbc.queryForObject("select epoch from gate_epoch where id = 1", Long.class);
  }

  @Test
  void storesTheEventAsAxonStoresAnAggregatesFirstEvent() {
    String byAggregate = "A-" + run;
    String direct = "B-" + run;
    Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    Instant expires = at.plusSeconds(900);
    try {
      MDC.put("requestId", "req-" + run);
      MDC.put("reservationId", byAggregate);
      appendAsAxonAppendsAnAggregatesFirstEvent(
          new ReserveStockCommand(byAggregate, "u-1", LINES, at, expires, 7, epoch));
      MDC.put("reservationId", direct);
      assertThat(
              storing.store(new ReserveStockCommand(direct, "u-1", LINES, at, expires, 7, epoch)))
          .isTrue();
    } finally {
      MDC.clear();
    }

    Map<String, Object> model = row(byAggregate);
    Map<String, Object> stored = row(direct);
    for (String column : List.of("sequence_number", "type", "payload_type", "payload_revision")) {
      assertThat(stored.get(column)).as(column).isEqualTo(model.get(column));
    }
    assertThat(stored.get("type")).isEqualTo("Reservation");
    assertThat(stored.get("time_stamp").toString())
        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
    assertThat(model.get("time_stamp").toString())
        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
    assertThat(stored.get("event_identifier")).isNotEqualTo(model.get("event_identifier"));
    assertThat(expiries(direct)).as("its expiry, without a scheduler's row").isEqualTo(1);

    JsonNode modelPayload = json(model.get("payload"));
    ((ObjectNode) modelPayload).put("reservationId", direct);
    assertThat(json(stored.get("payload"))).isEqualTo(modelPayload);

    JsonNode modelMeta = json(model.get("meta_data"));
    JsonNode storedMeta = json(stored.get("meta_data"));
    assertThat(names(storedMeta)).isEqualTo(names(modelMeta));
    assertThat(storedMeta.get("requestId").asText()).isEqualTo("req-" + run);
    assertThat(storedMeta.get("reservationId").asText()).isEqualTo(direct);
    assertThat(storedMeta.get("traceId")).isEqualTo(storedMeta.get("correlationId"));
    assertThat(storedMeta.get("correlationId").asText()).isNotBlank();
  }

  /**
   * The reference: the event appended by Axon itself, as an aggregate's {@code apply} appends it
   * while it handles the command (in a unit of work of that command, whose correlation data its
   * messages take, with the aggregate's type and the stream's first sequence number).
   */
  private void appendAsAxonAppendsAnAggregatesFirstEvent(ReserveStockCommand command) {
    DefaultUnitOfWork<CommandMessage<ReserveStockCommand>> unit =
        DefaultUnitOfWork.startAndGet(GenericCommandMessage.asCommandMessage(command));
    axon.correlationDataProviders().forEach(unit::registerCorrelationDataProvider);
    unit.attachTransaction(axonTransactions);
    unit.execute(
        () ->
            axon.eventStore()
                .publish(
                    new GenericDomainEventMessage<>(
                        "Reservation",
                        ReservationEvent.streamId(command.reservationId()),
                        0,
                        NewReservationRows.reserved(command))));
  }

  @Test
  void aReservationStoredWithoutItsAggregateIsConfirmedAndEndedThroughIt() {
    String confirmed = "C-" + run;
    String released = "R-" + run;
    Instant at = Instant.now();
    assertThat(store(confirmed, at.plusSeconds(900), epoch)).isTrue();
    assertThat(store(released, at.plusSeconds(900), epoch)).isTrue();

    GateHold hold = commands.sendAndWait(new ConfirmReservationCommand(confirmed, Instant.now()));
    assertThat(hold.lines()).isEqualTo(LINES);
    assertThat(hold.admission().is(11, epoch)).isTrue();
    assertThatThrownBy(
            () ->
                commands.sendAndWait(
                    new ReleaseReservationCommand(confirmed, "CANCELLED", Instant.now())))
        .isInstanceOf(ReservationNotActiveException.class);

    commands.sendAndWait(new ReleaseReservationCommand(released, "CANCELLED", Instant.now()));
    assertThat(payloadTypes(confirmed)).containsExactly("StockReserved", "StockConfirmed");
    assertThat(payloadTypes(released)).containsExactly("StockReserved", "StockReleased");
  }

  @Test
  void aBatchStoresItsReservationsButTheDuplicateAndTheOneOfAnEndedEpoch() throws Exception {
    String duplicate = "D-" + run;
    String stale = "E-" + run;
    List<String> fresh = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      fresh.add("F" + i + "-" + run);
    }
    Instant expires = Instant.now().plusSeconds(900);
    assertThat(store(duplicate, expires, epoch)).isTrue();

    ExecutorService requests = Executors.newFixedThreadPool(16);
    try (Connection rebuild = dataSource.getConnection()) {
      // As a rebuild would: the gate's row locked, so that the writer waits at the fence of the
      // first batch while every other reservation queues up behind it, to go in one batch.
      rebuild.setAutoCommit(false);
      try (Statement lock = rebuild.createStatement();
          ResultSet row =
              lock.executeQuery("select epoch from gate_epoch where id = 1 for update")) {
        row.next();
      }
      Future<Boolean> first = requests.submit(() -> store("G-" + run, expires, epoch));
      Thread.sleep(500);
      List<Future<Boolean>> batch = new ArrayList<>();
      for (String id : fresh) {
        batch.add(requests.submit(() -> store(id, expires, epoch)));
      }
      Future<Boolean> again = requests.submit(() -> store(duplicate, expires, epoch));
      Future<Boolean> ended = requests.submit(() -> store(stale, expires, epoch - 1));
      Thread.sleep(500);
      assertThat(first.isDone()).as("waiting at the fence").isFalse();
      rebuild.rollback();

      assertThat(first.get(30, TimeUnit.SECONDS)).isTrue();
      for (Future<Boolean> each : batch) {
        assertThat(each.get(30, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(again.get(30, TimeUnit.SECONDS)).as("already recorded").isFalse();
      assertThatThrownBy(() -> ended.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(GateEpochChangedException.class);
    } finally {
      requests.shutdownNow();
    }

    for (String id : fresh) {
      assertThat(payloadTypes(id)).as(id).containsExactly("StockReserved");
      assertThat(expiries(id)).as(id).isEqualTo(1);
    }
    assertThat(payloadTypes(duplicate)).containsExactly("StockReserved");
    assertThat(expiries(duplicate)).isEqualTo(1);
    assertThat(payloadTypes(stale)).isEmpty();
    assertThat(expiries(stale)).isZero();
  }

  @Test
  void anUnpaidReservationStoredWithoutItsAggregateExpiresAndAConfirmedOneDoesNot() {
    String unpaid = "U-" + run;
    String paid = "P-" + run;
    Instant soon = Instant.now().plusSeconds(1);
    assertThat(store(unpaid, soon, epoch)).isTrue();
    assertThat(store(paid, soon, epoch)).isTrue();
    commands.sendAndWait(new ConfirmReservationCommand(paid, Instant.now()));

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(expiries(unpaid)).isZero();
              assertThat(expiries(paid)).isZero();
            });
    assertThat(payloadTypes(unpaid)).containsExactly("StockReserved", "StockReleased");
    assertThat(
            jdbc.queryForObject(
                "select convert(payload using utf8mb4) from domain_event_entry"
                    + " where aggregate_identifier = ? and sequence_number = 1",
                String.class,
                ReservationEvent.streamId(unpaid)))
        .contains("\"reason\":\"" + StockReleased.EXPIRED + "\"");
    assertThat(payloadTypes(paid)).containsExactly("StockReserved", "StockConfirmed");
  }

  private boolean store(String id, Instant expiresAt, long gateEpoch) {
    return storing.store(
        new ReserveStockCommand(id, "u-" + id, LINES, Instant.now(), expiresAt, 11, gateEpoch));
  }

  private Map<String, Object> row(String reservationId) {
    return jdbc.queryForMap(
        "select sequence_number, type, event_identifier, convert(meta_data using utf8mb4)"
            + " meta_data, convert(payload using utf8mb4) payload, payload_revision,"
            + " payload_type, time_stamp from domain_event_entry where aggregate_identifier = ?",
        ReservationEvent.streamId(reservationId));
  }

  private List<String> payloadTypes(String reservationId) {
    return jdbc.queryForList(
        "select substring_index(payload_type, '.', -1) from domain_event_entry"
            + " where aggregate_identifier = ? order by sequence_number",
        String.class,
        ReservationEvent.streamId(reservationId));
  }

  private int expiries(String reservationId) {
    return jdbc.queryForObject(
        "select count(*) from reservation_expiry where reservation_id = ?",
        Integer.class,
        reservationId);
  }

  private static JsonNode json(Object text) {
    return JSON.readTree(text.toString());
  }

  private static List<String> names(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.properties().forEach(property -> names.add(property.getKey()));
    names.sort(null);
    return names;
  }
}
