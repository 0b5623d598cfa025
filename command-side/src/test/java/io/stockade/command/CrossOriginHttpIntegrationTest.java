package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.TestTokens;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard's origin calling the command side from a browser ({@code
 * stockade.cors.allowed-origins}), as a browser would: the preflight of a sale's command answered
 * without a token, the command itself answered with its CORS headers and done, the request of an
 * origin not allowed refused before it does anything, and a token still needed for the command.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "stockade.cors.allowed-origins=http://dashboard.test:8081, http://127.0.0.1:8081")
class CrossOriginHttpIntegrationTest {

  private static final String DASHBOARD = "http://dashboard.test:8081";
  private static final String ELSEWHERE = "http://elsewhere.test";
  private static final String ADMIN = "Bearer " + TestTokens.withRoles("admin");
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @LocalServerPort private int port;

  private final HttpClient client = HttpClient.newHttpClient();
  private String sku;

  @BeforeEach
  void register() throws Exception {
    sku = "cors-" + UUID.randomUUID().toString().substring(0, 8);
    HttpResponse<String> registered =
        send(
            request("/api/skus/" + sku)
                .header("Authorization", ADMIN)
                .header("Content-Type", "application/json")
                .PUT(BodyPublishers.ofString("{\"initialStock\": 10}")));
    assertThat(registered.statusCode()).isEqualTo(201);
  }

  @Test
  void aPreflightFromTheDashboardIsAnsweredWithoutAToken() throws Exception {
    HttpResponse<String> preflight = send(preflight(DASHBOARD, "/api/skus/" + sku + "/pause"));

    assertThat(preflight.statusCode()).isEqualTo(200);
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).hasValue(DASHBOARD);
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Methods").orElse(""))
        .contains("POST")
        .contains("PUT");
    assertThat(
            preflight.headers().firstValue("Access-Control-Allow-Headers").orElse("").toLowerCase())
        .contains("authorization")
        .contains("content-type");
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Credentials")).isEmpty();
  }

  @Test
  void theDashboardsCommandIsDoneAndItsAnswerReadable() throws Exception {
    HttpResponse<String> paused =
        send(
            request("/api/skus/" + sku + "/pause")
                .header("Origin", DASHBOARD)
                .header("Authorization", ADMIN)
                .header("Content-Type", "application/json")
                .POST(BodyPublishers.ofString("{\"reason\": \"price error\"}")));

    assertThat(paused.statusCode()).isEqualTo(200);
    assertThat(paused.headers().firstValue("Access-Control-Allow-Origin")).hasValue(DASHBOARD);
    assertThat(JSON.readTree(paused.body()).path("sale").path("state").asString())
        .isEqualTo("PAUSED");
    assertThat(state()).isEqualTo("PAUSED");
  }

  @Test
  void anotherOriginIsRefusedAndChangesNothing() throws Exception {
    HttpResponse<String> preflight = send(preflight(ELSEWHERE, "/api/skus/" + sku + "/pause"));
    assertThat(preflight.statusCode()).isEqualTo(403);
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    assertForbiddenProblem(preflight);

    HttpResponse<String> paused =
        send(
            request("/api/skus/" + sku + "/pause")
                .header("Origin", ELSEWHERE)
                .header("Authorization", ADMIN)
                .POST(BodyPublishers.noBody()));
    assertThat(paused.statusCode()).isEqualTo(403);
    assertThat(paused.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    assertForbiddenProblem(paused);
    assertThat(state()).isEqualTo("OPEN");
  }

  @Test
  void theDashboardsCommandStillNeedsAToken() throws Exception {
    HttpResponse<String> paused =
        send(
            request("/api/skus/" + sku + "/pause")
                .header("Origin", DASHBOARD)
                .POST(BodyPublishers.noBody()));

    assertThat(paused.statusCode()).isEqualTo(401);
    // Readable by the page, which shows the problem.
    assertThat(paused.headers().firstValue("Access-Control-Allow-Origin")).hasValue(DASHBOARD);
    assertThat(JSON.readTree(paused.body()).path("type").asString()).endsWith("/unauthorized");
    assertThat(state()).isEqualTo("OPEN");
  }

  private static void assertForbiddenProblem(HttpResponse<String> answer) {
    assertThat(answer.headers().firstValue("Content-Type"))
        .as("%s %s", answer.headers().map(), answer.body())
        .hasValue("application/problem+json");
    JsonNode problem = JSON.readTree(answer.body());
    assertThat(problem.path("type").asString()).endsWith("/forbidden");
    assertThat(problem.path("status").asInt()).isEqualTo(403);
    assertThat(problem.path("detail").asString()).contains(ELSEWHERE);
  }

  private String state() throws IOException, InterruptedException {
    HttpResponse<String> answer =
        send(request("/api/skus/" + sku).header("Authorization", ADMIN).GET());
    assertThat(answer.statusCode()).isEqualTo(200);
    JsonNode body = JSON.readTree(answer.body());
    return body.path("sale").path("state").asString();
  }

  private HttpRequest.Builder preflight(String origin, String path) {
    return request(path)
        .header("Origin", origin)
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "authorization,content-type")
        .method("OPTIONS", BodyPublishers.noBody());
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://localhost:" + port + path));
  }

  private HttpResponse<String> send(HttpRequest.Builder request)
      throws IOException, InterruptedException {
    return client.send(request.build(), BodyHandlers.ofString());
  }
}
