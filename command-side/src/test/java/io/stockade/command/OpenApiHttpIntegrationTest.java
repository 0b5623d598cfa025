package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.PublishedApiDocument;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/** The command side describes its HTTP API as OpenAPI, to callers without a token too. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OpenApiHttpIntegrationTest {

  /** The contract's endpoints of this service: path, method, and the statuses it documents. */
  private static final Map<String, Map<String, String[]>> CONTRACT =
      Map.of(
          "/api/skus/{skuId}", Map.of("put", new String[] {"200", "201", "400", "409"}),
          "/api/skus/{skuId}/replenishments",
              Map.of("post", new String[] {"200", "201", "400", "404", "422"}),
          "/api/reservations",
              Map.of("post", new String[] {"200", "201", "400", "404", "409", "422", "429", "503"}),
          "/api/reservations/{reservationId}/confirm",
              Map.of("post", new String[] {"200", "400", "404", "409", "429"}),
          "/api/reservations/{reservationId}/extend",
              Map.of("post", new String[] {"200", "400", "404", "409", "429"}),
          "/api/reservations/{reservationId}/release",
              Map.of("post", new String[] {"200", "404", "409", "429"}));

  @LocalServerPort private int port;

  @Test
  void describesEveryEndpointOfTheContractWithItsOutcomes() {
    ResponseEntity<JsonNode> docs = new ApiClient(port).withoutToken().get("/v3/api-docs");

    assertThat(docs.getStatusCode().value()).isEqualTo(200);
    JsonNode api = docs.getBody();
    assertThat(api.get("openapi").asString()).startsWith("3.");
    assertThat(api.get("info").get("title").asString()).isEqualTo("Stockade command-side");
    CONTRACT.forEach(
        (path, methods) ->
            methods.forEach(
                (method, statuses) -> {
                  JsonNode operation = api.get("paths").path(path).path(method);
                  assertThat(operation.isObject()).as(method + " " + path).isTrue();
                  JsonNode responses = operation.get("responses");
                  assertThat(responses.propertyNames()).as(method + " " + path).contains(statuses);
                  for (String status : statuses) {
                    assertThat(responses.get(status).get("content").propertyNames())
                        .as(method + " " + path + " " + status)
                        .containsExactly(
                            status.startsWith("2")
                                ? "application/json"
                                : "application/problem+json");
                  }
                }));
  }

  /**
   * The description equals docs/openapi/command-side.json, so that a change to the API is a
   * reviewed change to that file; {@code -Dstockade.openapi.write=true} rewrites the file instead.
   */
  @Test
  void matchesThePublishedDocument() {
    PublishedApiDocument.check(port, "command-side");
  }

  @Test
  void servesSwaggerUi() {
    ResponseEntity<String> page =
        new ApiClient(port).withoutToken().getText("/swagger-ui/index.html");

    assertThat(page.getStatusCode().value()).isEqualTo(200);
    assertThat(page.getBody()).contains("Swagger UI");
  }
}
