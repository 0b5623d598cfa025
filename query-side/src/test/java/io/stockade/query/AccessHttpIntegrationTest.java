package io.stockade.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.StrictJson;
import io.stockade.platform.testing.TestTokens;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Who may call what on the query side, over HTTP: every endpoint, the live stream and the start of
 * a replay included, refuses a request without a valid token (401) or without its role (403) with a
 * problem; a refused replay is not started; the role lets the request through; health is open.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class AccessHttpIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private EventStore eventStore;
  @Autowired private TransactionTemplate transaction;
  @Autowired private JdbcTemplate jdbc;

  private ApiClient http;
  private String run;

  /** An endpoint, the role it needs and what it answers to that role on the test's own data. */
  record Endpoint(String name, HttpMethod method, String path, String role, int ok) {

    @Override
    public String toString() {
      return name;
    }
  }

  /** Every endpoint but the start of a replay, which {@link #anAdminStartsAReplay} calls. */
  static Stream<Endpoint> readEndpoints() {
    return Stream.of(
        reader("stock of a SKU", "/api/stock/sku-%RUN%", 200),
        reader("stock of SKUs", "/api/stock?skuIds=sku-%RUN%", 200),
        reader("live stock", "/api/stock/sku-%RUN%/stream", 200),
        reader("every SKU's sale", "/api/sales?size=1", 200),
        reader("reservation", "/api/reservations/O-%RUN%", 200),
        reader("audit of a reservation", "/api/audit/reservations/O-%RUN%", 200),
        reader("audit of a SKU", "/api/audit/skus/sku-%RUN%", 200),
        reader("decisions of a SKU", "/api/audit/skus/sku-%RUN%/decisions", 200),
        reader("decisions of a user", "/api/audit/users/u-%RUN%/decisions", 200),
        reader("decisions per second", "/api/decisions/rate?minutes=1", 200),
        reader("the gate's state", "/api/gate", 200),
        reader("reconciliation", "/api/reconciliation", 200),
        reader("reconciliation of a SKU", "/api/reconciliation/skus/sku-%RUN%", 200),
        reader("replay status", "/api/replays/unknown-%RUN%", 404),
        reader("event feed", "/api/events?after=0&limit=1", 200),
        reader("event stream", "/api/events/stream?after=999999999999", 200),
        new Endpoint("actuator: info", HttpMethod.GET, "/actuator/info", "admin", 200),
        new Endpoint(
            "actuator: prometheus", HttpMethod.GET, "/actuator/prometheus", "metrics", 200));
  }

  static Stream<Endpoint> endpoints() {
    return Stream.concat(
        readEndpoints(),
        Stream.of(new Endpoint("start a replay", HttpMethod.POST, "/api/replays", "admin", 202)));
  }

  /** Every endpoint with each token that lacks its role. */
  static Stream<Arguments> endpointsAndTokensWithoutTheirRole() {
    return endpoints()
        .flatMap(
            endpoint ->
                (endpoint.role().equals("reader")
                        ? Stream.of(List.of("client"), List.of("metrics"), List.<String>of())
                        : Stream.of(
                            List.of("client"),
                            List.of("reader"),
                            List.of("metrics"),
                            List.of("client", "reader")))
                    .filter(roles -> !roles.contains(endpoint.role()))
                    .map(roles -> Arguments.of(endpoint, roles)));
  }

  /** Tokens that are not valid, each with every role. */
  static Stream<Arguments> invalidTokens() {
    return TestTokens.invalid().entrySet().stream()
        .map(token -> Arguments.of(token.getKey(), token.getValue()));
  }

  @BeforeEach
  void setUp() {
    http = new ApiClient(port);
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
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                http.get("/api/stock/" + sku).getStatusCode().value() == 200
                    && http.get("/api/reservations/O-" + run).getStatusCode().value() == 200);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("endpoints")
  void withoutATokenEveryEndpointAnswers401(Endpoint endpoint) throws Exception {
    long replays = replays();

    Answer answer = call(endpoint, null);

    answer.assertProblem(401, "unauthorized");
    assertThat(answer.header(HttpHeaders.WWW_AUTHENTICATE)).startsWith("Bearer");
    assertThat(answer.header(HttpHeaders.WWW_AUTHENTICATE)).doesNotContain("error=");
    assertThat(replays()).as("replays").isEqualTo(replays);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidTokens")
  void anInvalidTokenIsRefusedWith401(String what, String token) throws Exception {
    long replays = replays();

    for (Endpoint endpoint : endpoints().toList()) {
      Answer answer = call(endpoint, token);

      answer.assertProblem(401, "unauthorized");
      assertThat(answer.header(HttpHeaders.WWW_AUTHENTICATE))
          .as("%s, %s", endpoint, what)
          .startsWith("Bearer error=\"invalid_token\"");
    }
    assertThat(replays()).as("replays").isEqualTo(replays);
  }

  @ParameterizedTest(name = "{0} with the roles {1}")
  @MethodSource("endpointsAndTokensWithoutTheirRole")
  void aTokenWithoutTheEndpointsRoleIsRefusedWith403(Endpoint endpoint, List<String> roles)
      throws Exception {
    long replays = replays();

    Answer answer = call(endpoint, TestTokens.withRoles(roles.toArray(String[]::new)));

    answer.assertProblem(403, "forbidden");
    assertThat(answer.header(HttpHeaders.WWW_AUTHENTICATE))
        .startsWith("Bearer error=\"insufficient_scope\"");
    assertThat(replays()).as("replays").isEqualTo(replays);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("readEndpoints")
  void theEndpointsRoleLetsTheRequestThrough(Endpoint endpoint) throws Exception {
    assertThat(call(endpoint, TestTokens.withRoles(endpoint.role())).status())
        .isEqualTo(endpoint.ok());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("readEndpoints")
  void adminMayCallEveryEndpoint(Endpoint endpoint) throws Exception {
    assertThat(call(endpoint, TestTokens.withRoles("admin")).status()).isEqualTo(endpoint.ok());
  }

  @Test
  void anAdminStartsAReplay() {
    ApiClient admin = http.withToken(TestTokens.withRoles("admin"));

    ResponseEntity<JsonNode> started = admin.send(HttpMethod.POST, "/api/replays", null);

    assertThat(started.getStatusCode().value()).isEqualTo(202);
    String replayId = started.getBody().get("replayId").asString();
    // Over before the next test, whose read models it would otherwise hold.
    JsonNode done =
        await()
            .atMost(Duration.ofSeconds(180))
            .until(
                () -> admin.get("/api/replays/" + replayId).getBody(),
                replay -> !"RUNNING".equals(replay.get("status").asString()));
    assertThat(done.get("status").asString()).isEqualTo("DONE");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"/actuator/health", "/actuator/health/liveness", "/actuator/health/readiness"})
  void healthIsOpenWithoutAToken(String path) {
    ResponseEntity<JsonNode> answer = http.withoutToken().get(path);

    assertThat(answer.getStatusCode().value()).isEqualTo(200);
    assertThat(answer.getBody().get("status").asString()).isEqualTo("UP");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/dashboard/",
        "/dashboard/app.js",
        "/dashboard/style.css",
        "/dashboard/settings",
        "/v3/api-docs",
        "/swagger-ui/index.html"
      })
  void theDashboardsFilesAndTheApiDescriptionAreOpenWithoutAToken(String path) {
    ResponseEntity<String> answer = http.withoutToken().getText(path);

    assertThat(answer.getStatusCode().value()).isEqualTo(200);
    assertThat(answer.getBody()).isNotBlank();
  }

  @Test
  void aRequestNoRuleNamesIsDeniedEvenToAdmin() throws Exception {
    String admin = TestTokens.withRoles("admin", "client", "reader");
    Endpoint delete =
        new Endpoint("delete", HttpMethod.DELETE, "/api/reservations/O-%RUN%", "none", 0);
    Endpoint unknown = new Endpoint("unknown", HttpMethod.GET, "/api/nothing-here", "none", 0);

    call(delete, admin).assertProblem(403, "forbidden");
    call(unknown, admin).assertProblem(403, "forbidden");
    call(unknown, null).assertProblem(401, "unauthorized");
  }

  /** One request over java.net.http, which returns a live stream as soon as its headers came. */
  private Answer call(Endpoint endpoint, String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + fill(endpoint.path())))
            .timeout(Duration.ofSeconds(30))
            .method(endpoint.method().name(), HttpRequest.BodyPublishers.noBody());
    if (endpoint.path().endsWith("/stream")) {
      request.header("Accept", "text/event-stream");
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    HttpResponse<InputStream> response =
        HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream body = response.body()) {
      boolean problem =
          response
              .headers()
              .firstValue("Content-Type")
              .orElse("")
              .startsWith(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
      // A stream's body never ends: only a problem's is read.
      String text = problem ? new String(body.readAllBytes(), StandardCharsets.UTF_8) : "";
      return new Answer(response, text);
    }
  }

  private record Answer(HttpResponse<InputStream> response, String body) {

    int status() {
      return response.statusCode();
    }

    String header(String name) {
      return response.headers().firstValue(name).orElse(null);
    }

    void assertProblem(int status, String code) {
      assertThat(status()).as(body).isEqualTo(status);
      assertThat(header("Content-Type")).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
      JsonNode problem = StrictJson.mapper().readTree(body);
      assertThat(problem.get("type").asString()).isEqualTo("https://stockade.io/problems/" + code);
      assertThat(problem.get("status").asInt()).isEqualTo(status);
      assertThat(problem.get("title").asString()).isNotBlank();
      assertThat(problem.get("detail").asString()).isNotBlank();
      assertThat(body).doesNotContain("Exception", "at io.", "at org.");
    }
  }

  private long replays() {
    return jdbc.queryForObject("select count(*) from read_model_replay", Long.class);
  }

  private String fill(String template) {
    return template.replace("%RUN%", run);
  }

  private static Endpoint reader(String name, String path, int ok) {
    return new Endpoint(name, HttpMethod.GET, path, "reader", ok);
  }
}
