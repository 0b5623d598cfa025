package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.StrictJson;
import io.stockade.platform.testing.TestTokens;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Hostile and mistaken requests against the command side's endpoints, over HTTP with a real Redis
 * and a real MariaDB/MySQL: each is answered with its documented 4xx problem and changes nothing.
 *
 * <p>"Nothing" is checked with a {@link StoreSnapshot} taken before and after each request. Its
 * scope is the test's own: every test registers a fresh SKU and holds a live reservation of it,
 * both named with a token of its own that every identifier of its requests contains (the hostile
 * ones too, except the empty identifier, whose keys the snapshot covers by name), and waits until
 * what it set up has settled (the gate follower has applied its events) before the first snapshot.
 * Redis and the database are shared with the other tests of the run and with other runs: their keys
 * and events lie outside that scope and may change meanwhile; the snapshot's Javadoc says what it
 * leaves out and why.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class HostileInputHttpIntegrationTest {

  private static final String JSON = "application/json";
  private static final String LONG = "%RUN%" + "x".repeat(992);
  private static final int TEN_MEGABYTES = 10 * 1024 * 1024;

  @LocalServerPort private int port;
  @Autowired private StringRedisTemplate redis;
  @Autowired private JdbcTemplate jdbc;

  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = StrictJson.mapper();
  private String run;
  private String sku;
  private String reservation;

  /** A request, its placeholders %RUN%, %SKU% and %RES% filled in per test; no body when null. */
  record Hostile(
      String name,
      String method,
      String path,
      String body,
      String contentType,
      int status,
      String code) {

    @Override
    public String toString() {
      return name;
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    run = UUID.randomUUID().toString().substring(0, 8);
    sku = "sku-" + run;
    reservation = "O-" + run;
    assertThat(send("PUT", "/api/skus/" + sku, "{\"initialStock\":10,\"perUserLimit\":5}", JSON))
        .extracting(HttpResponse::statusCode)
        .isEqualTo(201);
    assertThat(
            send(
                "POST", "/api/reservations", reserveBody(reservation, "u-1", line(sku, "2")), JSON))
        .extracting(HttpResponse::statusCode)
        .isEqualTo(201);
    StoreSnapshot.awaitSettled(redis, jdbc, run);
  }

  static Stream<Hostile> hostileRequests() {
    String register = "/api/skus/new-%RUN%";
    String replenish = "/api/skus/%SKU%/replenishments";
    String reserve = "/api/reservations";
    String a101Lines =
        IntStream.range(0, 101)
            .mapToObj(i -> line("%RUN%-" + i, "1"))
            .collect(Collectors.joining(",", "[", "]"));
    return Stream.of(
        bad("register: malformed JSON", "PUT", register, "{\"initialStock\": "),
        bad("register: trailing garbage", "PUT", register, "{\"initialStock\": 5} x"),
        bad("register: a string for a number", "PUT", register, "{\"initialStock\": \"5\"}"),
        bad("register: an array for a number", "PUT", register, "{\"initialStock\": [5]}"),
        bad("register: an object for a number", "PUT", register, "{\"initialStock\": {\"n\": 5}}"),
        bad("register: true for a number", "PUT", register, "{\"initialStock\": true}"),
        bad("register: a decimal stock", "PUT", register, "{\"initialStock\": 5.5}"),
        bad("register: 5.0 for an integer", "PUT", register, "{\"initialStock\": 5.0}"),
        bad("register: a stock beyond int", "PUT", register, "{\"initialStock\": 2147483648}"),
        bad(
            "register: a stock beyond long",
            "PUT",
            register,
            "{\"initialStock\": 1" + "0".repeat(20) + "}"),
        bad("register: 1e400", "PUT", register, "{\"initialStock\": 1e400}"),
        bad("register: a negative stock", "PUT", register, "{\"initialStock\": -1}"),
        bad(
            "register: a stock above the maximum",
            "PUT",
            register,
            "{\"initialStock\": 1000000001}"),
        bad(
            "register: a negative limit",
            "PUT",
            register,
            "{\"initialStock\": 5, \"perUserLimit\": -1}"),
        bad("register: a null body", "PUT", register, "null"),
        bad("register: an array body", "PUT", register, "[]"),
        bad("register: an empty body", "PUT", register, ""),
        new Hostile(
            "register: no body, no Content-Type",
            "PUT",
            register,
            null,
            null,
            400,
            "invalid-request"),
        new Hostile(
            "register: text/plain",
            "PUT",
            register,
            "{\"initialStock\": 5}",
            "text/plain",
            415,
            "unsupported-media-type"),
        new Hostile(
            "register: no Content-Type",
            "PUT",
            register,
            "{\"initialStock\": 5}",
            null,
            415,
            "unsupported-media-type"),
        new Hostile(
            "register: a form",
            "PUT",
            register,
            "initialStock=5",
            "application/x-www-form-urlencoded",
            415,
            "unsupported-media-type"),
        badId("register: a skuId in braces", "PUT", "/api/skus/%7B%RUN%%7D"),
        badId("register: a skuId that closes the hash tag", "PUT", "/api/skus/a%7D:%7B%RUN%"),
        badId("register: a skuId with ':' and '*'", "PUT", "/api/skus/%RUN%:*"),
        badId("register: a unicode skuId", "PUT", "/api/skus/%C3%BC-%RUN%"),
        badId("register: a skuId with a space", "PUT", "/api/skus/a%20%RUN%"),
        badId("register: a skuId of 1,000 characters", "PUT", "/api/skus/" + LONG),
        new Hostile(
            "register: an empty skuId",
            "PUT",
            "/api/skus/",
            "{\"initialStock\": 5}",
            JSON,
            404,
            "not-found"),
        bad("replenish: zero units", "POST", replenish, replenishBody("\"R-%RUN%\"", "0")),
        bad("replenish: negative units", "POST", replenish, replenishBody("\"R-%RUN%\"", "-5")),
        bad(
            "replenish: units above the maximum",
            "POST",
            replenish,
            replenishBody("\"R-%RUN%\"", "1000001")),
        bad(
            "replenish: units beyond int",
            "POST",
            replenish,
            replenishBody("\"R-%RUN%\"", "2147483648")),
        bad(
            "replenish: a string for units",
            "POST",
            replenish,
            replenishBody("\"R-%RUN%\"", "\"5\"")),
        bad("replenish: decimal units", "POST", replenish, replenishBody("\"R-%RUN%\"", "5.5")),
        bad("replenish: 1e400 units", "POST", replenish, replenishBody("\"R-%RUN%\"", "1e400")),
        bad(
            "replenish: a replenishmentId in braces",
            "POST",
            replenish,
            replenishBody("\"R{%RUN%}\"", "5")),
        bad(
            "replenish: a unicode replenishmentId",
            "POST",
            replenish,
            replenishBody("\"R-\u00fc-%RUN%\"", "5")),
        bad(
            "replenish: a replenishmentId of 1,000 characters",
            "POST",
            replenish,
            replenishBody("\"" + LONG + "\"", "5")),
        bad("replenish: an empty replenishmentId", "POST", replenish, replenishBody("\"\"", "5")),
        bad(
            "replenish: a number for the replenishmentId",
            "POST",
            replenish,
            replenishBody("7", "5")),
        bad("replenish: malformed JSON", "POST", replenish, "{\"replenishmentId\": \"R-%RUN%\", "),
        new Hostile("replenish: no body", "POST", replenish, null, null, 400, "invalid-request"),
        new Hostile(
            "replenish: text/plain",
            "POST",
            replenish,
            replenishBody("\"R-%RUN%\"", "5"),
            "text/plain",
            415,
            "unsupported-media-type"),
        badId("replenish: a skuId with '*'", "POST", "/api/skus/%SKU%*/replenishments"),
        bad(
            "register: a sale that closes before it opens",
            "PUT",
            register,
            "{\"initialStock\": 5, \"sale\": {\"opensAt\": \"2030-01-01T10:00:00Z\","
                + " \"closesAt\": \"2030-01-01T09:00:00Z\"}}"),
        bad(
            "schedule: closesAt before opensAt",
            "PUT",
            "/api/skus/%SKU%/sale",
            "{\"opensAt\": \"2030-01-01T10:00:00Z\", \"closesAt\": \"2030-01-01T09:00:00Z\"}"),
        bad(
            "schedule: a pre-queue over an hour",
            "PUT",
            "/api/skus/%SKU%/sale",
            "{\"opensAt\": \"2030-01-01T10:00:00Z\", \"prequeueSeconds\": 3601}"),
        bad("schedule: no opensAt", "PUT", "/api/skus/%SKU%/sale", "{\"closesAt\": null}"),
        bad(
            "schedule: opensAt not a time",
            "PUT",
            "/api/skus/%SKU%/sale",
            "{\"opensAt\": \"tomorrow at ten\"}"),
        new Hostile(
            "schedule: a sale on since its registration cannot open later",
            "PUT",
            "/api/skus/%SKU%/sale",
            "{\"opensAt\": \"2030-01-01T10:00:00Z\"}",
            JSON,
            409,
            "sale-already-open"),
        bad(
            "pause: a reason over 200 characters",
            "POST",
            "/api/skus/%SKU%/pause",
            "{\"reason\": \"" + "r".repeat(201) + "\"}"),
        bad("limit: negative", "PUT", "/api/skus/%SKU%/limit", "{\"perUserLimit\": -1}"),
        bad("limit: a string", "PUT", "/api/skus/%SKU%/limit", "{\"perUserLimit\": \"3\"}"),
        bad("limit: a decimal", "PUT", "/api/skus/%SKU%/limit", "{\"perUserLimit\": 1.5}"),
        bad(
            "adjust: zero units",
            "POST",
            "/api/skus/%SKU%/adjustments",
            "{\"adjustmentId\": \"A-%RUN%\", \"quantity\": 0, \"reason\": \"DAMAGED\"}"),
        bad(
            "adjust: below the minimum",
            "POST",
            "/api/skus/%SKU%/adjustments",
            "{\"adjustmentId\": \"A-%RUN%\", \"quantity\": -1000000001, \"reason\": \"DAMAGED\"}"),
        bad(
            "adjust: an unknown reason",
            "POST",
            "/api/skus/%SKU%/adjustments",
            "{\"adjustmentId\": \"A-%RUN%\", \"quantity\": -1, \"reason\": \"BROKEN\"}"),
        bad(
            "adjust: a reason in lower case",
            "POST",
            "/api/skus/%SKU%/adjustments",
            "{\"adjustmentId\": \"A-%RUN%\", \"quantity\": -1, \"reason\": \"damaged\"}"),
        bad(
            "adjust: no reason",
            "POST",
            "/api/skus/%SKU%/adjustments",
            "{\"adjustmentId\": \"A-%RUN%\", \"quantity\": -1}"),
        bad(
            "adjust: a note over 200 characters",
            "POST",
            "/api/skus/%SKU%/adjustments",
            "{\"adjustmentId\": \"A-%RUN%\", \"quantity\": -1, \"reason\": \"OTHER\", \"note\": \""
                + "n".repeat(201)
                + "\"}"),
        bad(
            "adjust: an adjustmentId with '*'",
            "POST",
            "/api/skus/%SKU%/adjustments",
            "{\"adjustmentId\": \"A*%RUN%\", \"quantity\": -1, \"reason\": \"OTHER\"}"),
        new Hostile(
            "adjust: more units than are available",
            "POST",
            "/api/skus/%SKU%/adjustments",
            "{\"adjustmentId\": \"A-%RUN%\", \"quantity\": -11, \"reason\": \"DAMAGED\"}",
            JSON,
            409,
            "insufficient-stock"),
        bad(
            "reserve: zero units",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "0"))),
        bad(
            "reserve: negative units",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "-1"))),
        bad(
            "reserve: units above the maximum",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "1000001"))),
        bad(
            "reserve: units beyond int",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "2147483648"))),
        bad(
            "reserve: units beyond long",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "1" + "0".repeat(20)))),
        bad(
            "reserve: 1e400 units",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "1e400"))),
        bad(
            "reserve: decimal units",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "1.5"))),
        bad(
            "reserve: a string for units",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "\"1\""))),
        bad(
            "reserve: an object for the lines",
            "POST",
            reserve,
            "{\"reservationId\":\"N-%RUN%\",\"userId\":\"u-2\",\"lines\":"
                + line("%SKU%", "1")
                + "}"),
        bad("reserve: no lines", "POST", reserve, reserveBody("N-%RUN%", "u-2", "")),
        bad("reserve: a null line", "POST", reserve, reserveBody("N-%RUN%", "u-2", "null")),
        bad(
            "reserve: lines missing",
            "POST",
            reserve,
            "{\"reservationId\":\"N-%RUN%\",\"userId\":\"u-2\"}"),
        bad(
            "reserve: 101 SKUs",
            "POST",
            reserve,
            "{\"reservationId\":\"N-%RUN%\",\"userId\":\"u-2\",\"lines\":" + a101Lines + "}"),
        bad(
            "reserve: a hold of zero",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "1"), "0")),
        bad(
            "reserve: a negative hold",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "1"), "-1")),
        bad(
            "reserve: a hold above the maximum",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "1"), "86401")),
        bad(
            "reserve: a hold beyond long",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "1"), "1" + "0".repeat(20))),
        bad(
            "reserve: a 1e400 hold",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "1"), "1e400")),
        bad(
            "reserve: a string for the hold",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "1"), "\"900\"")),
        bad(
            "reserve: a reservationId in braces",
            "POST",
            reserve,
            reserveBody("N{%RUN%}", "u-2", line("%SKU%", "1"))),
        bad(
            "reserve: a reservationId with ':' and '*'",
            "POST",
            reserve,
            reserveBody("N:%RUN%*", "u-2", line("%SKU%", "1"))),
        bad(
            "reserve: a unicode reservationId",
            "POST",
            reserve,
            reserveBody("N-\u00fc-%RUN%", "u-2", line("%SKU%", "1"))),
        bad(
            "reserve: a reservationId of 1,000 characters",
            "POST",
            reserve,
            reserveBody(LONG, "u-2", line("%SKU%", "1"))),
        bad(
            "reserve: an empty reservationId",
            "POST",
            reserve,
            reserveBody("", "u-2", line("%SKU%", "1"))),
        bad(
            "reserve: a number for the reservationId",
            "POST",
            reserve,
            "{\"reservationId\":42,\"userId\":\"u-2\",\"lines\":[" + line("%SKU%", "1") + "]}"),
        bad(
            "reserve: a userId in braces",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u{%RUN%}", line("%SKU%", "1"))),
        bad(
            "reserve: an empty userId",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "", line("%SKU%", "1"))),
        bad(
            "reserve: a skuId with '*'",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%*", "1"))),
        bad(
            "reserve: a skuId that closes the hash tag",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%}:{x", "1"))),
        new Hostile(
            "reserve: a reservationId reused for other units",
            "POST",
            reserve,
            reserveBody("%RES%", "u-1", line("%SKU%", "1")),
            JSON,
            422,
            "reservation-id-reused"),
        new Hostile(
            "reserve: a reservationId reused by another user",
            "POST",
            reserve,
            reserveBody("%RES%", "u-2", line("%SKU%", "2")),
            JSON,
            422,
            "reservation-id-reused"),
        bad(
            "reserve: malformed JSON",
            "POST",
            reserve,
            "{\"reservationId\": \"N-%RUN%\", \"lines\": [{"),
        new Hostile("reserve: no body", "POST", reserve, null, null, 400, "invalid-request"),
        new Hostile(
            "reserve: text/plain",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "1")),
            "text/plain",
            415,
            "unsupported-media-type"),
        new Hostile(
            "reserve: no Content-Type",
            "POST",
            reserve,
            reserveBody("N-%RUN%", "u-2", line("%SKU%", "1")),
            null,
            415,
            "unsupported-media-type"),
        badId(
            "confirm: a reservationId in braces", "POST", "/api/reservations/%RES%%7Bx%7D/confirm"),
        badId(
            "confirm: a reservationId with ':' and '*'",
            "POST",
            "/api/reservations/%RES%:*/confirm"),
        badId("confirm: a unicode reservationId", "POST", "/api/reservations/%C3%BC-%RUN%/confirm"),
        badId(
            "confirm: a reservationId of 1,000 characters",
            "POST",
            "/api/reservations/" + LONG + "/confirm"),
        new Hostile(
            "confirm: an empty reservationId (a '//' the firewall refuses)",
            "POST",
            "/api/reservations//confirm",
            null,
            null,
            400,
            "invalid-request"),
        badId(
            "release: a reservationId in braces", "POST", "/api/reservations/%7B%RES%%7D/release"),
        badId("release: a unicode reservationId", "POST", "/api/reservations/%RES%-%C3%BC/release"),
        new Hostile(
            "release: an empty reservationId (a '//' the firewall refuses)",
            "POST",
            "/api/reservations//release",
            null,
            null,
            400,
            "invalid-request"),
        bad(
            "release: the expiry's own reason",
            "POST",
            "/api/reservations/%RES%/release",
            "{\"reason\": \"EXPIRED\"}"),
        bad(
            "release: a number for the reason",
            "POST",
            "/api/reservations/%RES%/release",
            "{\"reason\": 1}"),
        bad(
            "release: a lower-case reason",
            "POST",
            "/api/reservations/%RES%/release",
            "{\"reason\": \"cancelled\"}"),
        bad(
            "release: a reason of 1,000 characters",
            "POST",
            "/api/reservations/%RES%/release",
            "{\"reason\": \"" + "A".repeat(1000) + "\"}"),
        bad("release: malformed JSON", "POST", "/api/reservations/%RES%/release", "{\"reason\": "),
        bad(
            "extend: a reservationId in braces",
            "POST",
            "/api/reservations/%7B%RES%%7D/extend",
            "{\"holdSeconds\": 60}"),
        bad("extend: a string for holdSeconds", "POST", EXTEND, "{\"holdSeconds\": \"60\"}"),
        bad("extend: a fraction for holdSeconds", "POST", EXTEND, "{\"holdSeconds\": 60.5}"),
        bad("extend: a negative holdSeconds", "POST", EXTEND, "{\"holdSeconds\": -1}"),
        bad("extend: a holdSeconds of 1e400", "POST", EXTEND, "{\"holdSeconds\": 1e400}"),
        bad("extend: a null holdSeconds", "POST", EXTEND, "{\"holdSeconds\": null}"),
        bad("extend: no body", "POST", EXTEND, null),
        bad("extend: malformed JSON", "POST", EXTEND, "{\"holdSeconds\": "),
        new Hostile(
            "extend: text/plain",
            "POST",
            EXTEND,
            "60",
            "text/plain",
            415,
            "unsupported-media-type"),
        bad("confirm: lines not a list", "POST", CONFIRM, "{\"lines\": {\"skuId\": \"a\"}}"),
        bad("confirm: a null line", "POST", CONFIRM, "{\"lines\": [null]}"),
        bad(
            "confirm: a string for a quantity",
            "POST",
            CONFIRM,
            "{\"lines\": [{\"skuId\": \"%SKU%\", \"quantity\": \"1\"}]}"),
        bad(
            "confirm: a number for a skuId",
            "POST",
            CONFIRM,
            "{\"lines\": [{\"skuId\": 1, \"quantity\": 1}]}"),
        bad(
            "confirm: a unicode skuId",
            "POST",
            CONFIRM,
            "{\"lines\": [{\"skuId\": \"%SKU%-\u00fc\", \"quantity\": 1}]}"),
        bad(
            "confirm: a line without a quantity",
            "POST",
            CONFIRM,
            "{\"lines\": [{\"skuId\": \"%SKU%\"}]}"),
        bad(
            "confirm: more units than reserved",
            "POST",
            CONFIRM,
            "{\"lines\": [{\"skuId\": \"%SKU%\", \"quantity\": 1000}]}"),
        bad(
            "confirm: a SKU not reserved",
            "POST",
            CONFIRM,
            "{\"lines\": [{\"skuId\": \"other-%RUN%\", \"quantity\": 1}]}"),
        new Hostile(
            "release: text/plain",
            "POST",
            "/api/reservations/%RES%/release",
            "CANCELLED",
            "text/plain",
            415,
            "unsupported-media-type"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileRequests")
  void aHostileRequestIsItsDocumentedProblemAndChangesNothing(Hostile hostile) throws Exception {
    StoreSnapshot before = snapshot();

    HttpResponse<String> answer =
        send(hostile.method(), fill(hostile.path()), fill(hostile.body()), hostile.contentType());

    assertProblem(
        answer.statusCode(),
        answer.headers().firstValue("Content-Type").orElse(""),
        answer.body(),
        hostile.status(),
        hostile.code());
    before.assertUnchanged(snapshot(), jdbc, hostile.name());
  }

  /**
   * The firewall checks every header it is asked for (without regular expressions: see the
   * platform's FirewallCharacters): a C1 control character (byte 0x85, which Tomcat passes on as
   * U+0085) after the token of a valid reservation refuses it as a bad header (not as a bad token),
   * and nothing changes.
   */
  @Test
  void aControlCharacterInAHeaderIsRefusedAndChangesNothing() throws Exception {
    StoreSnapshot before = snapshot();
    String body = fill(reserveBody("H-%RUN%", "u-2", line("%SKU%", "1")));

    RawHttp answer;
    try (Socket socket = new Socket("localhost", port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /api/reservations HTTP/1.1\r\nHost: localhost\r\nContent-Type:"
                  + " application/json\r\nContent-Length: "
                  + body.getBytes(StandardCharsets.UTF_8).length
                  + "\r\nAuthorization: Bearer "
                  + TestTokens.ALL_ROLES)
              .getBytes(StandardCharsets.US_ASCII));
      out.write(0x85);
      out.write(("\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
      answer = RawHttp.read(socket.getInputStream());
    }

    assertProblem(
        answer.status(),
        answer.headers().get("content-type"),
        answer.body(),
        400,
        "invalid-request");
    assertThat(json.readTree(answer.body()).get("errors").get(0).get("field").asString())
        .isEqualTo("headers");
    before.assertUnchanged(snapshot(), jdbc, "a control character in a header");
  }

  @Test
  void aBodyAnnouncedAsTenMegabytesIsRefusedBeforeAnyOfItIsSent() throws Exception {
    StoreSnapshot before = snapshot();

    RawHttp answer;
    try (Socket socket = new Socket("localhost", port)) {
      socket.setSoTimeout(30_000);
      socket
          .getOutputStream()
          .write(
              ("PUT /api/skus/big-"
                      + run
                      + " HTTP/1.1\r\nHost: localhost\r\n"
                      + "Authorization: Bearer "
                      + TestTokens.ALL_ROLES
                      + "\r\n"
                      + "Content-Type: application/json\r\nContent-Length: "
                      + TEN_MEGABYTES
                      + "\r\n\r\n{\"initialStock\": 5, \"pad\": \"")
                  .getBytes(StandardCharsets.US_ASCII));
      answer = RawHttp.read(socket.getInputStream());
    }

    assertProblem(
        answer.status(),
        answer.headers().get("content-type"),
        answer.body(),
        413,
        "body-too-large");
    before.assertUnchanged(snapshot(), jdbc, "a body of 10 MB");
  }

  @Test
  void aChunkedBodyOfTenMegabytesIsRefusedOnceItPassesTheLimit() throws Exception {
    StoreSnapshot before = snapshot();
    AtomicLong sent = new AtomicLong();
    AtomicBoolean answered = new AtomicBoolean();

    RawHttp answer;
    long sentWhenAnswered;
    try (Socket socket = new Socket("localhost", port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("PUT /api/skus/big-"
                  + run
                  + " HTTP/1.1\r\nHost: localhost\r\n"
                  + "Authorization: Bearer "
                  + TestTokens.ALL_ROLES
                  + "\r\n"
                  + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      Thread writer = new Thread(() -> sendChunks(out, sent, answered));
      writer.start();
      InputStream in = socket.getInputStream();
      answer = RawHttp.read(in);
      sentWhenAnswered = sent.get();
      answered.set(true);
      writer.join(10_000);
    }

    assertProblem(
        answer.status(),
        answer.headers().get("content-type"),
        answer.body(),
        413,
        "body-too-large");
    assertThat(sentWhenAnswered).as("bytes sent when the answer came").isLessThan(TEN_MEGABYTES);
    before.assertUnchanged(snapshot(), jdbc, "a chunked body of 10 MB");
  }

  @Test
  void unknownFieldsAreIgnoredAndChangeNoMoreThanTheKnownFieldsSay() throws Exception {
    String known = reserveBody("N-" + run, "u-2", line(sku, "1"), "900");
    String withUnknown =
        known.substring(0, known.length() - 1)
            + ",\"status\":\"CONFIRMED\",\"sold\":7,\"lines[0]\":{\"quantity\":9}}";

    HttpResponse<String> reserved = send("POST", "/api/reservations", withUnknown, JSON);
    HttpResponse<String> retry = send("POST", "/api/reservations", known, JSON);
    HttpResponse<String> registered =
        send(
            "PUT",
            "/api/skus/new-" + run,
            "{\"initialStock\":5,\"available\":999999,\"sold\":3,\"skuId\":\"other-" + run + "\"}",
            JSON);

    assertThat(reserved.statusCode()).isEqualTo(201);
    assertThat(json.readTree(reserved.body()).get("status").asString()).isEqualTo("RESERVED");
    assertThat(retry.statusCode())
        .as("the same content as far as the known fields go")
        .isEqualTo(200);
    assertThat(redis.opsForHash().entries("stockade:{g0}:sku:" + sku))
        .containsEntry("available", "7")
        .containsEntry("reserved", "3")
        .containsEntry("sold", "0");
    assertThat(redis.opsForHash().get("stockade:{g0}:reservation:N-" + run, "state"))
        .isEqualTo("RESERVED");
    assertThat(RecordedEvents.count(jdbc, "N-" + run, null)).isEqualTo(1);
    assertThat(registered.statusCode()).isEqualTo(201);
    assertThat(json.readTree(registered.body()).get("skuId").asString()).isEqualTo("new-" + run);
    assertThat(json.readTree(registered.body()).get("totalStock").asLong()).isEqualTo(5);
    assertThat(redis.opsForHash().entries("stockade:{g0}:sku:new-" + run))
        .containsEntry("available", "5")
        .containsEntry("reserved", "0")
        .containsEntry("sold", "0");
    assertThat(redis.hasKey("stockade:{g0}:sku:other-" + run)).isFalse();
    assertThat(RecordedEvents.count(jdbc, "new-" + run, null)).isEqualTo(1);
    assertThat(RecordedEvents.count(jdbc, "other-" + run, null)).isZero();
  }

  private static void sendChunks(OutputStream out, AtomicLong sent, AtomicBoolean answered) {
    byte[] chunk = "x".repeat(64 * 1024).getBytes(StandardCharsets.US_ASCII);
    byte[] header =
        (Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
    try {
      String start = "{\"initialStock\":5,\"pad\":\"";
      out.write(
          (Integer.toHexString(start.length()) + "\r\n" + start + "\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      while (sent.get() < TEN_MEGABYTES && !answered.get()) {
        out.write(header);
        out.write(chunk);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        sent.addAndGet(chunk.length);
        Thread.sleep(2);
      }
    } catch (IOException | InterruptedException e) {
      // The service stopped reading and closed the connection: what the test expects.
    }
  }

  private void assertProblem(
      int status, String contentType, String body, int expectedStatus, String code)
      throws Exception {
    assertThat(status).as(body).isEqualTo(expectedStatus);
    assertThat(contentType).startsWith("application/problem+json");
    JsonNode problem = json.readTree(body);
    assertThat(problem.get("type").asString()).endsWith("/" + code);
    assertThat(problem.get("status").asInt()).isEqualTo(expectedStatus);
    assertThat(problem.get("title").asString()).isNotBlank();
    assertThat(problem.get("detail").asString()).isNotBlank();
    if (code.equals("invalid-request")) {
      assertThat(problem.get("errors")).isNotEmpty();
    }
    assertThat(body).doesNotContain("Exception", "at io.", "at org.");
  }

  private StoreSnapshot snapshot() {
    return StoreSnapshot.take(redis, jdbc, run);
  }

  private String fill(String template) {
    return template == null
        ? null
        : template.replace("%SKU%", sku).replace("%RES%", reservation).replace("%RUN%", run);
  }

  private HttpResponse<String> send(String method, String path, String body, String contentType)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + TestTokens.ALL_ROLES)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static final String EXTEND = "/api/reservations/%RES%/extend";
  private static final String CONFIRM = "/api/reservations/%RES%/confirm";

  private static Hostile bad(String name, String method, String path, String body) {
    return new Hostile(name, method, path, body, JSON, 400, "invalid-request");
  }

  private static Hostile badId(String name, String method, String path) {
    String body =
        path.startsWith("/api/skus/") && method.equals("PUT")
            ? "{\"initialStock\": 5}"
            : path.endsWith("replenishments") ? replenishBody("\"R-%RUN%\"", "5") : null;
    return new Hostile(
        name, method, path, body, body == null ? null : JSON, 400, "invalid-request");
  }

  private static String line(String skuId, String quantity) {
    return "{\"skuId\":\"" + skuId + "\",\"quantity\":" + quantity + "}";
  }

  private static String reserveBody(String reservationId, String userId, String lines) {
    return "{\"reservationId\":\""
        + reservationId
        + "\",\"userId\":\""
        + userId
        + "\",\"lines\":["
        + lines
        + "]}";
  }

  private static String reserveBody(
      String reservationId, String userId, String lines, String hold) {
    return "{\"reservationId\":\""
        + reservationId
        + "\",\"userId\":\""
        + userId
        + "\",\"lines\":["
        + lines
        + "],\"holdSeconds\":"
        + hold
        + "}";
  }

  private static String replenishBody(String replenishmentId, String quantity) {
    return "{\"replenishmentId\":" + replenishmentId + ",\"quantity\":" + quantity + "}";
  }
}
