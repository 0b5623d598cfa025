package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.TestTokens;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.web.FilterChainProxy;
import org.springframework.security.web.ObservationFilterChainDecorator;
import org.springframework.test.util.ReflectionTestUtils;
import tools.jackson.databind.JsonNode;

/**
 * Who may call what on the command side, over HTTP: every endpoint refuses a request without a
 * valid token (401) or without its role (403) with a problem, and such a request changes nothing in
 * Redis or the database ({@link StoreSnapshot}, scoped to the test's own SKU and reservation as in
 * {@link HostileInputHttpIntegrationTest}); the role lets it through; health is open.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class AccessHttpIntegrationTest {

  @LocalServerPort private int port;
  @Autowired private StringRedisTemplate redis;
  @Autowired private JdbcTemplate jdbc;

  private ApiClient http;
  private String run;
  private String sku;
  private String reservation;

  /** An endpoint, the role it needs and what it answers to that role on the test's own data. */
  record Endpoint(String name, HttpMethod method, String path, String body, String role, int ok) {

    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Endpoint> endpoints() {
    return Stream.of(
        new Endpoint(
            "reserve",
            HttpMethod.POST,
            "/api/reservations",
            "{\"reservationId\":\"N-%RUN%\",\"userId\":\"u-2\","
                + "\"lines\":[{\"skuId\":\"%SKU%\",\"quantity\":1}]}",
            "client",
            201),
        new Endpoint(
            "confirm", HttpMethod.POST, "/api/reservations/%RES%/confirm", null, "client", 200),
        new Endpoint(
            "release", HttpMethod.POST, "/api/reservations/%RES%/release", null, "client", 200),
        new Endpoint(
            "extend",
            HttpMethod.POST,
            "/api/reservations/%RES%/extend",
            "{\"holdSeconds\":60}",
            "client",
            200),
        new Endpoint(
            "register",
            HttpMethod.PUT,
            "/api/skus/new-%RUN%",
            "{\"initialStock\":5}",
            "admin",
            201),
        new Endpoint(
            "replenish",
            HttpMethod.POST,
            "/api/skus/%SKU%/replenishments",
            "{\"replenishmentId\":\"R-%RUN%\",\"quantity\":5}",
            "admin",
            201),
        new Endpoint("actuator: info", HttpMethod.GET, "/actuator/info", null, "admin", 200),
        new Endpoint(
            "actuator: prometheus", HttpMethod.GET, "/actuator/prometheus", null, "metrics", 200));
  }

  /** Every endpoint with each token that lacks its role. */
  static Stream<Arguments> endpointsAndTokensWithoutTheirRole() {
    return endpoints()
        .flatMap(
            endpoint ->
                (endpoint.role().equals("client")
                        ? Stream.of(List.of("reader"), List.of("metrics"), List.<String>of())
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
    sku = "sku-" + run;
    reservation = "O-" + run;
    // Retried on 503 (a gate being rebuilt after another test's Redis restart), as the contract
    // allows: the same identifiers, so never twice.
    succeeds(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\":10,\"perUserLimit\":5}");
    succeeds(
        HttpMethod.POST,
        "/api/reservations",
        "{\"reservationId\":\""
            + reservation
            + "\",\"userId\":\"u-1\",\"lines\":[{\"skuId\":\""
            + sku
            + "\",\"quantity\":2}]}");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("endpoints")
  void withoutATokenEveryEndpointAnswers401AndChangesNothing(Endpoint endpoint) {
    StoreSnapshot.awaitSettled(redis, jdbc, run);
    StoreSnapshot before = snapshot();

    ResponseEntity<JsonNode> answer = call(http.withoutToken(), endpoint);

    assertProblem(answer, 401, "unauthorized");
    assertThat(answer.getHeaders().getFirst(HttpHeaders.WWW_AUTHENTICATE)).startsWith("Bearer");
    assertThat(answer.getHeaders().getFirst(HttpHeaders.WWW_AUTHENTICATE)).doesNotContain("error=");
    before.assertUnchanged(snapshot(), jdbc, endpoint + " without a token");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidTokens")
  void anInvalidTokenIsRefusedWith401AndChangesNothing(String what, String token) {
    StoreSnapshot.awaitSettled(redis, jdbc, run);
    StoreSnapshot before = snapshot();

    for (Endpoint endpoint : endpoints().toList()) {
      ResponseEntity<JsonNode> answer = call(http.withToken(token), endpoint);

      assertProblem(answer, 401, "unauthorized");
      assertThat(answer.getHeaders().getFirst(HttpHeaders.WWW_AUTHENTICATE))
          .as("%s, %s", endpoint, what)
          .startsWith("Bearer error=\"invalid_token\"");
    }
    before.assertUnchanged(snapshot(), jdbc, "a token " + what);
  }

  @ParameterizedTest(name = "{0} with the roles {1}")
  @MethodSource("endpointsAndTokensWithoutTheirRole")
  void aTokenWithoutTheEndpointsRoleIsRefusedWith403AndChangesNothing(
      Endpoint endpoint, List<String> roles) {
    StoreSnapshot.awaitSettled(redis, jdbc, run);
    StoreSnapshot before = snapshot();

    ResponseEntity<JsonNode> answer =
        call(http.withToken(TestTokens.withRoles(roles.toArray(String[]::new))), endpoint);

    assertProblem(answer, 403, "forbidden");
    assertThat(answer.getHeaders().getFirst(HttpHeaders.WWW_AUTHENTICATE))
        .startsWith("Bearer error=\"insufficient_scope\"");
    before.assertUnchanged(snapshot(), jdbc, endpoint + " with the roles " + roles);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("endpoints")
  void theEndpointsRoleLetsTheRequestThrough(Endpoint endpoint) {
    ApiClient client = http.withToken(TestTokens.withRoles(endpoint.role()));

    assertThat(client.status(endpoint.method(), fill(endpoint.path()), fill(endpoint.body())))
        .isEqualTo(endpoint.ok());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("endpoints")
  void adminMayCallEveryEndpoint(Endpoint endpoint) {
    ApiClient admin = http.withToken(TestTokens.withRoles("admin"));

    assertThat(admin.status(endpoint.method(), fill(endpoint.path()), fill(endpoint.body())))
        .isEqualTo(endpoint.ok());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"/actuator/health", "/actuator/health/liveness", "/actuator/health/readiness"})
  void healthIsOpenWithoutAToken(String path) {
    ResponseEntity<JsonNode> answer = http.withoutToken().get(path);

    assertThat(answer.getStatusCode().value()).isEqualTo(200);
    assertThat(answer.getBody().get("status").asString()).isEqualTo("UP");
  }

  @Test
  void aRequestNoRuleNamesIsDeniedEvenToAdmin() {
    ApiClient admin = http.withToken(TestTokens.withRoles("admin", "client", "reader"));

    assertProblem(admin.send(HttpMethod.DELETE, "/api/skus/" + sku, null), 403, "forbidden");
    assertProblem(
        admin.send(HttpMethod.DELETE, "/api/reservations/" + reservation, null), 403, "forbidden");
    assertProblem(admin.get("/api/nothing-here"), 403, "forbidden");
    assertProblem(http.withoutToken().get("/api/nothing-here"), 401, "unauthorized");
  }

  /**
   * Spring Security's chain runs without observations, not merely with observations turned off
   * (each filter was still wrapped for every request), and the requests themselves stay observed.
   */
  @Test
  void theSecurityChainRunsUnobservedAndRequestsStayObserved(
      @Autowired FilterChainProxy chain, @Autowired MeterRegistry meters) {
    http.send(HttpMethod.POST, "/api/reservations/" + reservation + "/confirm", null);

    assertThat(ReflectionTestUtils.getField(chain, "filterChainDecorator"))
        .isNotNull()
        .isNotInstanceOf(ObservationFilterChainDecorator.class);
    assertThat(meters.find("http.server.requests").timers()).isNotEmpty();
    assertThat(meters.getMeters())
        .noneMatch(meter -> meter.getId().getName().startsWith("spring.security."));
  }

  @Test
  void noSessionIsKept() {
    ResponseEntity<JsonNode> answer =
        http.send(HttpMethod.POST, "/api/reservations/" + reservation + "/confirm", null);

    assertThat(answer.getStatusCode().value()).isEqualTo(200);
    assertThat(answer.getHeaders().get(HttpHeaders.SET_COOKIE)).isNull();
  }

  private void succeeds(HttpMethod method, String path, String body) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> http.send(method, path, body).getStatusCode().value(), status -> status < 300);
  }

  private ResponseEntity<JsonNode> call(ApiClient client, Endpoint endpoint) {
    return client.send(endpoint.method(), fill(endpoint.path()), fill(endpoint.body()));
  }

  private static void assertProblem(ResponseEntity<JsonNode> answer, int status, String code) {
    assertThat(answer.getStatusCode().value()).as("%s", answer.getBody()).isEqualTo(status);
    assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
    JsonNode problem = answer.getBody();
    assertThat(problem.get("type").asString()).isEqualTo("https://stockade.io/problems/" + code);
    assertThat(problem.get("status").asInt()).isEqualTo(status);
    assertThat(problem.get("title").asString()).isNotBlank();
    assertThat(problem.get("detail").asString()).isNotBlank();
    assertThat(problem.toString()).doesNotContain("Exception", "at io.", "at org.");
  }

  /** The token with its signature taken off and its header saying {@code "alg":"none"}. */
  private StoreSnapshot snapshot() {
    return StoreSnapshot.take(redis, jdbc, run);
  }

  private String fill(String template) {
    return template == null
        ? null
        : template.replace("%SKU%", sku).replace("%RES%", reservation).replace("%RUN%", run);
  }
}
