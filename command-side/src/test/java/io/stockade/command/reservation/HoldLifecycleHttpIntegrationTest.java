package io.stockade.command.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ConfirmReservationCommand;
import io.stockade.api.reservation.ExtendReservationCommand;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.RecordedEvents;
import io.stockade.platform.testing.ApiClient;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Extending a hold and confirming part of a reservation over HTTP, against a real Redis and a real
 * database: the events say what happened, the gate follows, and the expiry follows the hold's end.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class HoldLifecycleHttpIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private StringRedisTemplate redis;
  @Autowired private JdbcTemplate jdbc;
  @Autowired private CommandGateway commands;

  private ApiClient http;
  private String run;
  private String kept;
  private String dropped;

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
    run = UUID.randomUUID().toString().substring(0, 8);
    kept = "kept-" + run;
    dropped = "dropped-" + run;
    http.send(HttpMethod.PUT, "/api/skus/" + kept, "{\"initialStock\": 10, \"perUserLimit\": 3}");
    http.send(HttpMethod.PUT, "/api/skus/" + dropped, "{\"initialStock\": 10}");
  }

  @Test
  void aPartialConfirmationSellsWhatItNamesAndGivesTheRestAndTheAllowanceBackAtOnce() {
    String id = "O-" + run;
    assertThat(reserve(id, "u-1", 3, 2, null).getStatusCode().value()).isEqualTo(201);

    ResponseEntity<JsonNode> confirmed = confirm(id, line(kept, 1));

    assertThat(confirmed.getStatusCode().value()).isEqualTo(200);
    assertThat(confirmed.getBody().get("status").asString()).isEqualTo("CONFIRMED");
    assertThat(confirmed.getBody().get("lines").toString())
        .isEqualTo("[{\"skuId\":\"" + kept + "\",\"quantity\":1}]");
    assertThat(counters(kept))
        .containsEntry("available", "9")
        .containsEntry("reserved", "0")
        .containsEntry("sold", "1");
    assertThat(counters(dropped))
        .containsEntry("available", "10")
        .containsEntry("reserved", "0")
        .containsEntry("sold", "0");
    assertThat(events(id, "StockConfirmed")).isEqualTo(1);
    assertThat(payload(id, "StockConfirmed"))
        .contains("\"lines\":[{\"skuId\":\"" + kept + "\",\"quantity\":1}]");
    assertThat(payload(id, "StockReleased"))
        .contains("\"reason\":\"NOT_CONFIRMED\"")
        .contains(
            "\"lines\":[{\"skuId\":\""
                + kept
                + "\",\"quantity\":2},{\"skuId\":\""
                + dropped
                + "\",\"quantity\":2}]");

    // A repeat with the same lines, or with none, is the same answer; with other lines, refused.
    assertThat(confirm(id, line(kept, 1)).getBody()).isEqualTo(confirmed.getBody());
    ResponseEntity<JsonNode> bare = http.send(HttpMethod.POST, confirmPath(id), null);
    assertThat(bare.getStatusCode().value()).isEqualTo(200);
    assertThat(bare.getBody()).isEqualTo(confirmed.getBody());
    ResponseEntity<JsonNode> other = confirm(id, line(kept, 2));
    assertThat(other.getStatusCode().value()).isEqualTo(409);
    assertThat(other.getBody().get("reservationStatus").asString()).isEqualTo("CONFIRMED");
    assertThat(http.send(HttpMethod.POST, "/api/reservations/" + id + "/release", null))
        .extracting(response -> response.getStatusCode().value())
        .isEqualTo(409);
    assertThat(events(id, null)).as("nothing more recorded").isEqualTo(3);

    // The allowance of the units given back: 1 sold of a limit of 3 leaves 2.
    assertThat(reserve(id + "-2", "u-1", 2, 0, null).getStatusCode().value()).isEqualTo(201);
    ResponseEntity<JsonNode> over = reserve(id + "-3", "u-1", 1, 0, null);
    assertThat(over.getStatusCode().value()).isEqualTo(409);
    assertThat(over.getBody().get("type").asString()).endsWith("/purchase-limit-exceeded");
  }

  @Test
  void aConfirmationWithLinesTheReservationDoesNotHoldIsABadRequestAndChangesNothing() {
    String id = "O-" + run;
    reserve(id, "u-1", 2, 1, null);

    ResponseEntity<JsonNode> otherSku = confirm(id, line("other-" + run, 1));
    ResponseEntity<JsonNode> tooMany = confirm(id, line(kept, 1), line(kept, 2));
    ResponseEntity<JsonNode> none = confirm(id, line(kept, 0));
    ResponseEntity<JsonNode> empty = http.send(HttpMethod.POST, confirmPath(id), "{\"lines\":[]}");

    for (ResponseEntity<JsonNode> response : List.of(otherSku, tooMany, none, empty)) {
      assertThat(response.getStatusCode().value()).isEqualTo(400);
      assertThat(response.getBody().get("type").asString()).endsWith("/invalid-request");
    }
    assertThat(otherSku.getBody().get("errors").get(0).get("field").asString())
        .isEqualTo("lines[0].skuId");
    assertThat(tooMany.getBody().get("errors").get(0).get("field").asString())
        .as("lines of one SKU merged: 3 of the 2 reserved")
        .isEqualTo("lines[0].quantity");
    assertThat(events(id, null)).isEqualTo(1);
    assertThat(counters(kept)).containsEntry("reserved", "2").containsEntry("sold", "0");

    ResponseEntity<JsonNode> whole = confirm(id, line(dropped, 1), line(kept, 2));
    assertThat(whole.getStatusCode().value()).isEqualTo(200);
    assertThat(events(id, "StockReleased")).as("every unit named: a whole confirmation").isZero();
    assertThat(counters(kept)).containsEntry("sold", "2");
    assertThat(counters(dropped)).containsEntry("sold", "1");
  }

  @Test
  void anExtensionMovesTheHoldsEndLaterOnlyAndARetryIsAnsweredWithIt() {
    String id = "O-" + run;
    ResponseEntity<JsonNode> reserved = reserve(id, "u-1", 1, 0, 60);
    Instant before = Instant.parse(reserved.getBody().get("expiresAt").asString());

    Instant asked = Instant.now();
    ResponseEntity<JsonNode> extended = extend(id, 600);
    ResponseEntity<JsonNode> shorter = extend(id, 10);

    assertThat(extended.getStatusCode().value()).isEqualTo(200);
    assertThat(extended.getBody().get("status").asString()).isEqualTo("RESERVED");
    Instant after = Instant.parse(extended.getBody().get("expiresAt").asString());
    assertThat(after).isAfter(before).isAfterOrEqualTo(asked.plusSeconds(599));
    assertThat(shorter.getStatusCode().value()).isEqualTo(200);
    assertThat(shorter.getBody()).as("not sooner: unchanged").isEqualTo(extended.getBody());
    assertThat(events(id, "ReservationExtended")).isEqualTo(1);
    assertThat(counters(kept)).containsEntry("reserved", "1").containsEntry("available", "9");
    ResponseEntity<JsonNode> retry = reserve(id, "u-1", 1, 0, 60);
    assertThat(retry.getStatusCode().value()).isEqualTo(200);
    assertThat(retry.getBody().get("expiresAt").asString())
        .as("the gate answers a retry with the hold as extended")
        .isEqualTo(extended.getBody().get("expiresAt").asString());

    assertThat(confirm(id, line(kept, 1)).getStatusCode().value()).isEqualTo(200);
    ResponseEntity<JsonNode> ended = extend(id, 600);
    assertThat(ended.getStatusCode().value()).isEqualTo(409);
    assertThat(ended.getBody().get("type").asString()).endsWith("/reservation-not-active");
    assertThat(ended.getBody().get("reservationStatus").asString()).isEqualTo("CONFIRMED");
  }

  @Test
  void badExtensionsAreProblemsAndChangeNothing() {
    String id = "O-" + run;
    reserve(id, "u-1", 1, 0, 60);

    assertThat(status("/api/reservations/" + id + "/extend", "{}")).isEqualTo(400);
    assertThat(status("/api/reservations/" + id + "/extend", "{\"holdSeconds\":0}")).isEqualTo(400);
    assertThat(status("/api/reservations/" + id + "/extend", "{\"holdSeconds\":\"5\"}"))
        .isEqualTo(400);
    assertThat(status("/api/reservations/" + id + "/extend", "{\"holdSeconds\":86401}"))
        .as("beyond the longest hold")
        .isEqualTo(400);
    assertThat(status("/api/reservations/" + id + "/extend", null)).isEqualTo(400);
    ResponseEntity<JsonNode> unknown = extend("nope-" + run, 60);
    assertThat(unknown.getStatusCode().value()).isEqualTo(404);
    assertThat(unknown.getBody().get("type").asString()).endsWith("/unknown-reservation");
    assertThat(events(id, "ReservationExtended")).isZero();
  }

  @Test
  void theExpiryFollowsAnExtendedHold() {
    String id = "O-" + run;
    reserve(id, "u-1", 2, 0, 2);
    Instant extendedTo = Instant.parse(extend(id, 6).getBody().get("expiresAt").asString());

    // The expiry's row came due at the first end, found the hold extended and moved to its end.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(dueAt(id)).isEqualTo(extendedTo));
    assertThat(events(id, "StockReleased")).as("not released at the first end").isZero();

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(events(id, "StockReleased")).isEqualTo(1));
    assertThat(payload(id, "StockReleased")).contains("\"reason\":\"EXPIRED\"");
    assertThat(releasedAt(id)).isAfterOrEqualTo(extendedTo);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(counters(kept))
                    .containsEntry("available", "10")
                    .containsEntry("reserved", "0"));
  }

  @Test
  void anExtensionWhoseExpiryRowCannotBeWrittenIsNotRecordedAndItsRepeatWritesBoth() {
    String id = "O-" + run;
    ResponseEntity<JsonNode> reserved = reserve(id, "u-1", 1, 0, 60);
    String gateEnd = String.valueOf(reservationInGate(id).get("expiresAt"));
    // A reservation stored before expiry rows existed has none: the extension writes it.
    jdbc.update("delete from reservation_expiry where reservation_id = ?", id);
    String trigger = "refuse_expiry_" + run.replace('-', '_');
    jdbc.execute(
        "create trigger "
            + trigger
            + " before insert on reservation_expiry for each row if new.reservation_id = '"
            + id
            + "' then signal sqlstate '45000' set message_text = 'expiry row refused'; end if");
    ResponseEntity<JsonNode> failed;
    try {
      failed = extend(id, 600);
    } finally {
      jdbc.execute("drop trigger " + trigger);
    }

    // Its row could not be written, so its event was not stored either: nothing to hide.
    assertThat(failed.getStatusCode().is5xxServerError()).isTrue();
    assertThat(events(id, "ReservationExtended")).isZero();
    assertThat(reservationInGate(id)).containsEntry("expiresAt", gateEnd);

    ResponseEntity<JsonNode> repeated = extend(id, 600);
    assertThat(repeated.getStatusCode().value()).isEqualTo(200);
    Instant extendedTo = Instant.parse(repeated.getBody().get("expiresAt").asString());
    assertThat(extendedTo).isAfter(Instant.parse(reserved.getBody().get("expiresAt").asString()));
    assertThat(events(id, "ReservationExtended")).isEqualTo(1);
    assertThat(dueAt(id)).as("the expiry follows the extended hold").isEqualTo(extendedTo);
  }

  @Test
  void aPartialConfirmationAndAnExtensionWhoseGateStepsNeverHappenedReachTheGate() {
    String id = "O-" + run;
    reserve(id, "u-1", 3, 2, 60);
    Instant later = Instant.now().plusSeconds(3600).truncatedTo(ChronoUnit.MILLIS);

    // Recorded as a request records them, then stopped before the gate: a crash in between.
    commands.sendAndWait(new ExtendReservationCommand(id, later, Instant.now()));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(redis.opsForHash().get("stockade:{g0}:reservation:" + id, "expiresAt"))
                    .isEqualTo(String.valueOf(later.toEpochMilli())));
    commands.sendAndWait(
        new ConfirmReservationCommand(id, List.of(new ReservationLine(kept, 1)), Instant.now()));

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(counters(kept))
                  .containsEntry("available", "9")
                  .containsEntry("reserved", "0")
                  .containsEntry("sold", "1");
              assertThat(counters(dropped))
                  .containsEntry("available", "10")
                  .containsEntry("reserved", "0");
            });
    assertThat(redis.opsForHash().entries("stockade:{g0}:reservation:" + id))
        .containsEntry("state", "CONFIRMED")
        .containsEntry("confirmed", kept + " 1 " + dropped + " 0");
    assertThat(redis.opsForHash().get("stockade:{g0}:sku:" + kept + ":holders", "u-1"))
        .isEqualTo("1");
  }

  private ResponseEntity<JsonNode> reserve(
      String reservationId, String user, int ofKept, int ofDropped, Integer holdSeconds) {
    StringBuilder lines = new StringBuilder();
    if (ofKept > 0) {
      lines.append(line(kept, ofKept));
    }
    if (ofDropped > 0) {
      lines.append(lines.length() > 0 ? "," : "").append(line(dropped, ofDropped));
    }
    return http.send(
        HttpMethod.POST,
        "/api/reservations",
        "{\"reservationId\":\""
            + reservationId
            + "\",\"userId\":\""
            + user
            + "\""
            + (holdSeconds == null ? "" : ",\"holdSeconds\":" + holdSeconds)
            + ",\"lines\":["
            + lines
            + "]}");
  }

  private static String line(String sku, int quantity) {
    return "{\"skuId\":\"" + sku + "\",\"quantity\":" + quantity + "}";
  }

  private ResponseEntity<JsonNode> confirm(String reservationId, String... lines) {
    return http.send(
        HttpMethod.POST,
        confirmPath(reservationId),
        "{\"lines\":[" + String.join(",", lines) + "]}");
  }

  private static String confirmPath(String reservationId) {
    return "/api/reservations/" + reservationId + "/confirm";
  }

  private ResponseEntity<JsonNode> extend(String reservationId, int holdSeconds) {
    return http.send(
        HttpMethod.POST,
        "/api/reservations/" + reservationId + "/extend",
        "{\"holdSeconds\":" + holdSeconds + "}");
  }

  private int status(String path, String body) {
    return http.send(HttpMethod.POST, path, body).getStatusCode().value();
  }

  private Map<Object, Object> reservationInGate(String reservationId) {
    return redis.opsForHash().entries("stockade:{g0}:reservation:" + reservationId);
  }

  private Map<Object, Object> counters(String sku) {
    return redis.opsForHash().entries("stockade:{g0}:sku:" + sku);
  }

  private int events(String reservationId, String type) {
    return RecordedEvents.count(jdbc, reservationId, type);
  }

  private String payload(String reservationId, String type) {
    return jdbc.queryForObject(
        "select convert(payload using utf8mb4) from domain_event_entry"
            + " where aggregate_identifier = ? and payload_type like ?",
        String.class,
        ReservationEvent.streamId(reservationId),
        "%." + type);
  }

  private Instant dueAt(String reservationId) {
    return jdbc.queryForObject(
        "select due_at from reservation_expiry where reservation_id = ?",
        (row, index) -> row.getObject(1, LocalDateTime.class).toInstant(ZoneOffset.UTC),
        reservationId);
  }

  private Instant releasedAt(String reservationId) {
    String payload = payload(reservationId, "StockReleased");
    String value = payload.replaceAll(".*\"releasedAt\":\"([^\"]+)\".*", "$1");
    return Instant.parse(value);
  }
}
