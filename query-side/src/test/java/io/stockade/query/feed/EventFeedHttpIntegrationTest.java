package io.stockade.query.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.AdjustmentReason;
import io.stockade.api.sku.PurchaseLimitChanged;
import io.stockade.api.sku.SalePaused;
import io.stockade.api.sku.SaleResumed;
import io.stockade.api.sku.SaleScheduled;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockAdjusted;
import io.stockade.platform.eventstore.SettledHorizon;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.Metrics;
import io.stockade.platform.testing.StrictJson;
import io.stockade.platform.testing.TestTokens;
import io.stockade.query.Events;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * The event feed over HTTP, as a downstream service reads it: every event of every type once, in
 * order, with its payload as stored; never past an event a transaction still holds, past an insert
 * rolled back once no transaction can fill its hole; and the same as server-sent events, resumed
 * with {@code Last-Event-ID}, kept open by heartbeats, bounded in number.
 *
 * <p>Each test writes events of its own ids and follows the feed from the head it found, as a
 * consumer does ({@code after=next}); the suite's other contexts share the database but write no
 * events while this class runs.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.event-feed.stream.heartbeat-interval=1s",
      "stockade.event-feed.stream.max-subscribers=3"
    })
class EventFeedHttpIntegrationTest {

  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private JdbcTemplate jdbc;
  @Autowired private SettledHorizon horizon;
  @Autowired private EventStreams streams;

  private final HttpClient http = HttpClient.newHttpClient();
  private String run;

  @BeforeEach
  void setUp() {
    run = UUID.randomUUID().toString().substring(0, 8);
    // The streams an earlier test closed are let go at their next heartbeat (1 s here): each test
    // has every place.
    await().atMost(PATIENCE).until(() -> streams.open() == 0);
  }

  @Test
  void servesEventsOfEveryTypeOnceInOrderWithTheirPayloadsAsStored() throws Exception {
    long head = head();
    String sku = "sku-" + run;
    String reservation = "O-" + run;
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    List<ReservationLine> lines = List.of(new ReservationLine(sku, 3));
    Events.append(eventStore, transaction, sku, 0, new SkuRegistered(sku, 10, 5));
    // The sale's events, on the SKU's stream.
    Events.append(
        eventStore,
        transaction,
        sku,
        1,
        new SaleScheduled(sku, now.plusSeconds(60), now.plusSeconds(3600), 30));
    Events.append(eventStore, transaction, sku, 2, new SalePaused(sku, "price error"));
    Events.append(eventStore, transaction, sku, 3, new SaleResumed(sku));
    Events.append(eventStore, transaction, sku, 4, new PurchaseLimitChanged(sku, null));
    Events.append(
        eventStore,
        transaction,
        sku,
        5,
        new StockAdjusted(sku, "A-" + run, -2, AdjustmentReason.DAMAGED, "pallet 3"));
    Events.append(
        eventStore,
        transaction,
        reservation,
        0,
        new StockReserved(reservation, "u-1", lines, now, now.plusSeconds(900), 1, 1));
    Events.append(
        eventStore,
        transaction,
        reservation,
        1,
        new ReservationExtended(reservation, "u-1", now.plusSeconds(1800), now));
    Events.append(
        eventStore,
        transaction,
        reservation,
        2,
        new StockConfirmed(reservation, "u-1", List.of(new ReservationLine(sku, 1)), now));
    Events.append(
        eventStore,
        transaction,
        reservation,
        3,
        new StockReleased(
            reservation,
            "u-1",
            List.of(new ReservationLine(sku, 2)),
            StockReleased.NOT_CONFIRMED,
            now));

    // Pages of two: the last page's next is where the following page begins.
    List<JsonNode> seen = follow(head, 2, 10);

    List<Map<String, Object>> stored =
        jdbc.queryForList(
            "select global_index, aggregate_identifier, payload, time_stamp from domain_event_entry"
                + " where aggregate_identifier in (?, ?) order by global_index",
            "sku:" + sku,
            "reservation:" + reservation);
    assertThat(seen).hasSize(10);
    assertThat(seen)
        .extracting(event -> event.get("type").asString())
        .containsExactly(
            "SkuRegistered",
            "SaleScheduled",
            "SalePaused",
            "SaleResumed",
            "PurchaseLimitChanged",
            "StockAdjusted",
            "StockReserved",
            "ReservationExtended",
            "StockConfirmed",
            "StockReleased");
    assertThat(seen)
        .extracting(event -> event.get("aggregateType").asString())
        .containsExactly(
            "Sku",
            "Sku",
            "Sku",
            "Sku",
            "Sku",
            "Sku",
            "Reservation",
            "Reservation",
            "Reservation",
            "Reservation");
    assertThat(seen)
        .extracting(event -> event.get("aggregateId").asString())
        .containsExactly(
            sku, sku, sku, sku, sku, sku, reservation, reservation, reservation, reservation);
    for (int i = 0; i < 10; i++) {
      JsonNode event = seen.get(i);
      Map<String, Object> row = stored.get(i);
      assertThat(event.get("position").asLong())
          .isEqualTo(((Number) row.get("global_index")).longValue());
      assertThat(event.get("payload").isObject()).isTrue();
      assertThat(event.get("payload"))
          .isEqualTo(
              StrictJson.read(new String((byte[]) row.get("payload"), StandardCharsets.UTF_8)));
      assertThat(Instant.parse(event.get("timestamp").asString()))
          .isEqualTo(Instant.parse((String) row.get("time_stamp")));
    }
    assertThat(seen.get(9).get("payload").get("reason").asString()).isEqualTo("NOT_CONFIRMED");
    assertThat(seen.get(1).get("payload").get("opensAt").asString())
        .isEqualTo(now.plusSeconds(60).toString());
    assertThat(seen.get(1).get("payload").get("prequeueSeconds").asInt()).isEqualTo(30);
    assertThat(seen.get(2).get("payload").get("reason").asString()).isEqualTo("price error");
    assertThat(seen.get(4).get("payload").path("perUserLimit").isNumber()).isFalse();
    assertThat(seen.get(5).get("payload").get("quantity").asInt()).isEqualTo(-2);
    assertThat(seen.get(5).get("payload").get("reason").asString()).isEqualTo("DAMAGED");
    assertThat(seen.get(7).get("payload").get("expiresAt").asString())
        .isEqualTo(now.plusSeconds(1800).toString());
  }

  @Test
  void neverPassesAnEventHeldInAnOpenTransactionAndDeliversItOnceItCommits() throws Exception {
    String heldSku = "sku-" + run;
    Events.append(eventStore, transaction, heldSku, 0, new SkuRegistered(heldSku, 10, 1));
    long head = head();
    String held = "O-held-" + run;
    Events.Held open = Events.appendHeld(eventStore, transaction, held, 0, reserved(held, heldSku));
    try {
      List<String> later = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        String sku = "sku-" + run + "-" + i;
        Events.append(eventStore, transaction, sku, 0, new SkuRegistered(sku, 10, 1));
        later.add(sku);
      }
      long firstLater = position("sku:" + later.get(0));
      assertThat(
              jdbc.queryForObject(
                  "select count(*) from domain_event_entry where global_index > ? and global_index < ?",
                  Long.class,
                  head,
                  firstLater))
          .as("the held event's index is a hole below the later events")
          .isLessThan(firstLater - head - 1);

      Consumer consumer = new Consumer(head);
      consumer.poll();
      assertThat(consumer.ids()).doesNotContain(later.toArray(String[]::new));
      // Until the horizon has listed the transactions three times since it first saw the hole
      // (the first list a second after): it has had every chance to pass it.
      long lists = horizon.freshLists();
      await()
          .atMost(PATIENCE)
          .until(
              () ->
                  consumer.poll().ids().contains(later.get(0))
                      || horizon.freshLists() >= lists + 3);
      consumer.poll();
      assertThat(consumer.ids()).doesNotContain(later.toArray(String[]::new)).doesNotContain(held);
      assertThat(consumer.after).isLessThan(firstLater);
      assertThat(horizon.settled()).isLessThan(firstLater);
      double heldFor = holeWaitSeconds();
      assertThat(heldFor)
          .as("stockade_event_feed_hole_wait_seconds while the feed is held at the hole")
          .isGreaterThan(0);
      await().atMost(PATIENCE).until(() -> holeWaitSeconds() > heldFor);

      open.commit();
      await().atMost(PATIENCE).until(() -> consumer.poll().ids().contains(later.get(2)));
      // No reader held at a hole once the transaction has ended.
      await().atMost(PATIENCE).until(() -> holeWaitSeconds() == 0);
      List<String> ours = new ArrayList<>(consumer.ids());
      ours.retainAll(List.of(held, later.get(0), later.get(1), later.get(2)));
      assertThat(ours).containsExactly(held, later.get(0), later.get(1), later.get(2));
      consumer.assertEachOnceInOrder();
    } finally {
      open.release();
    }
  }

  @Test
  void movesPastAnInsertRolledBackOnceNoTransactionCanFillItsHole() throws Exception {
    long head = head();
    String rolledBack = "O-rolled-back-" + run;
    transaction.executeWithoutResult(
        status -> {
          Events.append(eventStore, transaction, rolledBack, 0, reserved(rolledBack, "sku-" + run));
          status.setRollbackOnly();
        });
    String after = "sku-" + run + "-after";
    Events.append(eventStore, transaction, after, 0, new SkuRegistered(after, 10, 1));
    long position = position("sku:" + after);
    assertThat(
            jdbc.queryForObject(
                "select count(*) from domain_event_entry where global_index > ? and global_index < ?",
                Long.class,
                head,
                position))
        .as("the rolled-back insert left a hole below the later event")
        .isLessThan(position - head - 1);

    Consumer consumer = new Consumer(head);
    await().atMost(PATIENCE).until(() -> consumer.poll().ids().contains(after));

    assertThat(consumer.ids()).doesNotContain(rolledBack);
    consumer.assertEachOnceInOrder();
    assertThat(horizon.evidence()).isEqualTo(SettledHorizon.Evidence.TRANSACTIONS);
  }

  @Test
  void streamsEachEventOnceWithItsPositionAsIdAndResumesAfterTheLastEventId() throws Exception {
    long head = head();
    List<String> skus = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      skus.add("sku-" + run + "-" + i);
    }
    List<SseStream.Event> received = new ArrayList<>();
    try (SseStream stream = stream("/api/events/stream?after=" + head, Map.of())) {
      assertThat(stream.response().statusCode()).isEqualTo(200);
      assertThat(stream.response().headers().firstValue("Content-Type").orElseThrow())
          .startsWith("text/event-stream");
      for (int i = 0; i < 3; i++) {
        Events.append(
            eventStore, transaction, skus.get(i), 0, new SkuRegistered(skus.get(i), 1, 1));
      }
      while (received.size() < 3) {
        received.add(stream.next(PATIENCE));
      }
    }
    for (SseStream.Event event : received) {
      JsonNode data = StrictJson.read(event.data());
      assertThat(event.name()).isEqualTo("event");
      assertThat(event.id()).isEqualTo(Long.toString(data.get("position").asLong()));
      assertThat(data.get("type").asString()).isEqualTo("SkuRegistered");
      assertThat(data.get("payload").get("skuId").asString())
          .isEqualTo(data.get("aggregateId").asString());
    }
    assertThat(received)
        .extracting(event -> StrictJson.read(event.data()).get("aggregateId").asString())
        .containsExactly(skus.get(0), skus.get(1), skus.get(2));
    for (int i = 3; i < 5; i++) {
      Events.append(eventStore, transaction, skus.get(i), 0, new SkuRegistered(skus.get(i), 1, 1));
    }

    // A reconnecting client: Last-Event-ID wins over after.
    String lastEventId = received.get(1).id();
    try (SseStream resumed =
        stream("/api/events/stream?after=0", Map.of("Last-Event-ID", lastEventId))) {
      List<SseStream.Event> again = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        again.add(resumed.next(PATIENCE));
      }
      assertThat(again)
          .extracting(event -> StrictJson.read(event.data()).get("aggregateId").asString())
          .containsExactly(skus.get(2), skus.get(3), skus.get(4));
      assertThat(again.get(0).id()).isEqualTo(received.get(2).id());
    }
  }

  @Test
  void aQuietStreamIsSentHeartbeats() throws Exception {
    try (SseStream stream =
        stream("/api/events/stream?after=" + (head() + 1_000_000_000L), Map.of())) {
      assertThat(stream.response().statusCode()).isEqualTo(200);
      assertThat(stream.nextComment(PATIENCE)).isEqualTo("heartbeat");
      assertThat(stream.nextComment(PATIENCE)).isEqualTo("heartbeat");
    }
  }

  @Test
  void refusesAStreamBeyondItsBoundWith503AndTakesOneOnceAPlaceIsFree() throws Exception {
    String quiet = "/api/events/stream?after=" + (head() + 1_000_000_000L);
    List<SseStream> open = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        open.add(stream(quiet, Map.of()));
        assertThat(open.get(i).response().statusCode()).isEqualTo(200);
      }
      Problem refused = problem(quiet, Map.of());
      assertThat(refused.status()).isEqualTo(503);
      assertThat(refused.retryAfter()).isNotBlank();
      assertThat(refused.body().get("type").asString()).endsWith("/too-many-streams");

      open.remove(0).close();
      SseStream again =
          await()
              .atMost(PATIENCE)
              .until(
                  () -> {
                    SseStream tried = stream(quiet, Map.of());
                    if (tried.response().statusCode() != 200) {
                      tried.close();
                    }
                    return tried;
                  },
                  tried -> tried.response().statusCode() == 200);
      open.add(again);
    } finally {
      for (SseStream stream : open) {
        stream.close();
      }
    }
  }

  @Test
  void aLastEventIdThatIsNoPositionIsAnInvalidRequest() throws Exception {
    for (String id : List.of("x", "-1", "1.5", "99999999999999999999")) {
      Problem answer = problem("/api/events/stream", Map.of("Last-Event-ID", id));

      assertThat(answer.status()).as(id).isEqualTo(400);
      assertThat(answer.body().get("type").asString()).endsWith("/invalid-request");
      assertThat(answer.body().get("errors").get(0).get("field").asString())
          .isEqualTo("Last-Event-ID");
    }
  }

  /** A downstream consumer: asks after the position it has reached, and keeps what it receives. */
  /** The gauge as Prometheus scrapes it. */
  private double holeWaitSeconds() {
    return Metrics.scrape(new ApiClient(port).withToken(TestTokens.withRoles("metrics")))
        .value("stockade_event_feed_hole_wait_seconds")
        .orElseThrow();
  }

  private final class Consumer {

    long after;
    final List<JsonNode> events = new ArrayList<>();

    Consumer(long after) {
      this.after = after;
    }

    Consumer poll() throws Exception {
      while (true) {
        JsonNode page = page(after, 100);
        page.get("events").forEach(events::add);
        long next = page.get("next").asLong();
        if (!page.get("events").isEmpty()) {
          assertThat(next)
              .isEqualTo(
                  page.get("events").get(page.get("events").size() - 1).get("position").asLong());
        } else {
          assertThat(next).isEqualTo(after);
        }
        after = next;
        if (page.get("events").size() < 100) {
          return this;
        }
      }
    }

    List<String> ids() {
      return events.stream().map(event -> event.get("aggregateId").asString()).toList();
    }

    void assertEachOnceInOrder() {
      List<Long> positions = events.stream().map(event -> event.get("position").asLong()).toList();
      assertThat(positions).isSorted().doesNotHaveDuplicates();
    }
  }

  /** Follows the feed from {@code after} in pages of {@code limit} until it has {@code count}. */
  private List<JsonNode> follow(long after, int limit, int count) throws Exception {
    List<JsonNode> seen = new ArrayList<>();
    long[] position = {after};
    await()
        .atMost(PATIENCE)
        .until(
            () -> {
              JsonNode page = page(position[0], limit);
              assertThat(page.get("events").size()).isLessThanOrEqualTo(limit);
              page.get("events").forEach(seen::add);
              position[0] = page.get("next").asLong();
              return seen.size() >= count;
            });
    return seen;
  }

  private JsonNode page(long after, int limit) throws Exception {
    HttpResponse<String> answer = get("/api/events?after=" + after + "&limit=" + limit, Map.of());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return StrictJson.read(answer.body());
  }

  private HttpResponse<String> get(String path, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = request(path, headers);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A problem's status, Retry-After and body; fails on a stream, whose body it does not read. */
  private record Problem(int status, String retryAfter, JsonNode body) {}

  private Problem problem(String path, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = request(path, headers).header("Accept", "text/event-stream");
    HttpResponse<InputStream> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream body = response.body()) {
      assertThat(response.headers().firstValue("Content-Type"))
          .as("status %d", response.statusCode())
          .hasValue("application/problem+json");
      return new Problem(
          response.statusCode(),
          response.headers().firstValue("Retry-After").orElse(null),
          StrictJson.read(new String(body.readAllBytes(), StandardCharsets.UTF_8)));
    }
  }

  private SseStream stream(String path, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = request(path, headers).header("Accept", "text/event-stream");
    HttpResponse<InputStream> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    return new SseStream(response);
  }

  private HttpRequest.Builder request(String path, Map<String, String> headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + TestTokens.withRoles("reader"));
    headers.forEach(request::header);
    return request;
  }

  private long head() {
    Long head = jdbc.queryForObject("select max(global_index) from domain_event_entry", Long.class);
    return head == null ? 0 : head;
  }

  private long position(String streamId) {
    return jdbc.queryForObject(
        "select global_index from domain_event_entry where aggregate_identifier = ?",
        Long.class,
        streamId);
  }

  private static StockReserved reserved(String reservationId, String sku) {
    Instant now = Instant.now();
    return new StockReserved(
        reservationId,
        "u-1",
        List.of(new ReservationLine(sku, 1)),
        now,
        now.plusSeconds(900),
        1,
        1);
  }
}
