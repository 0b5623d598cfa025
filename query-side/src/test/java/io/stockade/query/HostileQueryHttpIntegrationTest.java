package io.stockade.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.platform.testing.StrictJson;
import io.stockade.platform.testing.TestTokens;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Hostile identifiers and parameters in the query side's GET endpoints: each is answered with its
 * problem and changes nothing.
 *
 * <p>"Nothing" is checked, before and after each request, on what the test owns: the names of the
 * {@code stockade:} keys in Redis that hold the test's token (the query side only reads Redis), and
 * the rows of the event store and of the read model ({@code stock_level}, {@code stock_ledger},
 * {@code reservation_view}) whose identifiers hold it, once the projections have applied the test's
 * events. Others' keys and rows (other tests, other runs on the same servers) and the processors'
 * tokens move meanwhile and are left out; every hostile identifier holds the token, except the
 * empty one, which names no endpoint.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class HostileQueryHttpIntegrationTest {

  private static final String LONG = "%RUN%" + "x".repeat(992);

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private JdbcTemplate jdbc;
  @Autowired private StringRedisTemplate redis;

  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = StrictJson.mapper();
  private String run;

  @BeforeEach
  void setUp() {
    run = UUID.randomUUID().toString().substring(0, 8);
    String sku = "sku-" + run;
    Instant now = Instant.now();
    Events.append(eventStore, transaction, sku, 0, new SkuRegistered(sku, 10, 2));
    Events.append(
        eventStore,
        transaction,
        "O-" + run,
        0,
        new StockReserved(
            "O-" + run,
            "u-1",
            List.of(new ReservationLine(sku, 2)),
            now,
            now.plusSeconds(900),
            1,
            1));
    // Both events applied, in whichever order the projections' segments took them.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count(
                            "select count(*) from stock_level where sku_id = ?"
                                + " and total = 10 and reserved = 2 and registered_at is not null",
                            sku)
                        + count("select count(*) from stock_ledger where sku_id = ?", sku)
                        + count(
                            "select count(*) from reservation_view where reservation_id = ?",
                            "O-" + run)
                    == 4);
  }

  static Stream<Arguments> hostileRequests() {
    return Stream.of(
        Arguments.of("/api/stock/%7B%RUN%%7D", 400, "invalid-request"),
        Arguments.of("/api/stock/%RUN%:*", 400, "invalid-request"),
        Arguments.of("/api/stock/%C3%BC-%RUN%", 400, "invalid-request"),
        Arguments.of("/api/stock/" + LONG, 400, "invalid-request"),
        Arguments.of("/api/stock/", 404, "not-found"),
        Arguments.of("/api/stock?skuIds=sku-%RUN%,%7B%RUN%%7D", 400, "invalid-request"),
        Arguments.of("/api/stock?skuIds=", 400, "invalid-request"),
        Arguments.of("/api/stock?skuIds=" + LONG, 400, "invalid-request"),
        Arguments.of("/api/stock/%RUN%*/stream", 400, "invalid-request"),
        Arguments.of("/api/reservations/O-%RUN%%7Bx%7D", 400, "invalid-request"),
        Arguments.of("/api/reservations/O-%RUN%:*", 400, "invalid-request"),
        Arguments.of("/api/reservations/" + LONG, 400, "invalid-request"),
        Arguments.of("/api/audit/reservations/%C3%BC-%RUN%", 400, "invalid-request"),
        Arguments.of("/api/audit/reservations/O-%RUN%*", 400, "invalid-request"),
        Arguments.of("/api/audit/skus/sku-%RUN%%7D", 400, "invalid-request"),
        Arguments.of("/api/audit/skus/sku-%RUN%?at=yesterday", 400, "invalid-request"),
        Arguments.of("/api/audit/skus/sku-%RUN%?size=0", 400, "invalid-request"),
        Arguments.of("/api/audit/skus/sku-%RUN%?size=99999999999999999999", 400, "invalid-request"),
        Arguments.of("/api/audit/skus/sku-%RUN%?page=-1", 400, "invalid-request"),
        Arguments.of("/api/audit/skus/sku-%RUN%?page=1e400", 400, "invalid-request"),
        Arguments.of("/api/audit/skus/sku-%RUN%?page=1.5", 400, "invalid-request"),
        Arguments.of("/api/audit/skus/sku-%RUN%%7D/decisions", 400, "invalid-request"),
        Arguments.of("/api/audit/skus/sku-%RUN%/decisions?from=yesterday", 400, "invalid-request"),
        Arguments.of("/api/audit/skus/sku-%RUN%/decisions?size=1e400", 400, "invalid-request"),
        Arguments.of("/api/audit/skus/sku-%RUN%/decisions?around=%27", 400, "invalid-request"),
        Arguments.of("/api/audit/users/u-%RUN%%27/decisions", 400, "invalid-request"),
        Arguments.of("/api/audit/users/" + LONG + "/decisions", 400, "invalid-request"),
        Arguments.of("/api/audit/users/u-%RUN%/decisions?page=1.5", 400, "invalid-request"),
        Arguments.of("/api/decisions/rate?minutes=61", 400, "invalid-request"),
        Arguments.of("/api/decisions/rate?minutes=%27", 400, "invalid-request"),
        Arguments.of("/api/sales?size=0", 400, "invalid-request"),
        Arguments.of("/api/sales?size=501", 400, "invalid-request"),
        Arguments.of("/api/sales?page=-1", 400, "invalid-request"),
        Arguments.of("/api/sales?page=1e400", 400, "invalid-request"),
        Arguments.of("/api/sales?size=x%RUN%", 400, "invalid-request"),
        Arguments.of("/api/reconciliation/skus/%RUN%:*", 400, "invalid-request"),
        Arguments.of("/api/replays/%7B%RUN%%7D", 400, "invalid-request"),
        Arguments.of("/api/events?after=-1", 400, "invalid-request"),
        Arguments.of("/api/events?after=1.5", 400, "invalid-request"),
        Arguments.of("/api/events?after=99999999999999999999", 400, "invalid-request"),
        Arguments.of("/api/events?after=%27%RUN%", 400, "invalid-request"),
        Arguments.of("/api/events?limit=0", 400, "invalid-request"),
        Arguments.of("/api/events?limit=1001", 400, "invalid-request"),
        Arguments.of("/api/events?limit=1e400", 400, "invalid-request"),
        Arguments.of("/api/events/stream?after=-1", 400, "invalid-request"),
        // Never a number, whatever the run's id (eight hex digits can all be decimal ones).
        Arguments.of("/api/events/stream?after=x%RUN%", 400, "invalid-request"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileRequests")
  void aHostileQueryIsItsDocumentedProblemAndChangesNothing(String path, int status, String code)
      throws Exception {
    Map<String, Object> before = snapshot();

    // The whole answer within 30 s: a stream opened by mistake fails the request, not the build
    // (the request's own timeout covers its headers only).
    HttpResponse<String> answer =
        http.sendAsync(
                HttpRequest.newBuilder(
                        URI.create("http://localhost:" + port + path.replace("%RUN%", run)))
                    .timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + TestTokens.ALL_ROLES)
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .get(30, TimeUnit.SECONDS);

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(status);
    assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    JsonNode problem = json.readTree(answer.body());
    assertThat(problem.get("type").asString()).endsWith("/" + code);
    if (code.equals("invalid-request")) {
      assertThat(problem.get("errors")).isNotEmpty();
    }
    assertThat(answer.body()).doesNotContain("Exception", "at io.", "at org.");
    assertThat(snapshot()).isEqualTo(before);
  }

  private Map<String, Object> snapshot() {
    String like = "%" + run + "%";
    Map<String, Object> snapshot = new TreeMap<>();
    // The query side only reads Redis (the reconciliation); the test writes no key there.
    snapshot.put("redis", new TreeSet<>(redis.keys("stockade:*" + run + "*")));
    snapshot.put(
        "events",
        jdbc.queryForList(
            "select global_index, aggregate_identifier, sequence_number, md5(payload)"
                + " from domain_event_entry where aggregate_identifier like ? order by global_index",
            like));
    snapshot.put(
        "stock_level", jdbc.queryForList("select * from stock_level where sku_id like ?", like));
    snapshot.put(
        "stock_ledger",
        jdbc.queryForList(
            "select * from stock_ledger where sku_id like ? order by global_index", like));
    snapshot.put(
        "reservation_view",
        jdbc.queryForList("select * from reservation_view where reservation_id like ?", like));
    return snapshot;
  }

  private int count(String sql, String id) {
    return jdbc.queryForObject(sql, Integer.class, id);
  }
}
