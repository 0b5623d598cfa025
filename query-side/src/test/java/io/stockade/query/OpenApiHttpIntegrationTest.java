package io.stockade.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.PublishedApiDocument;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/** The query side describes its HTTP API as OpenAPI, to callers without a token too. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OpenApiHttpIntegrationTest {

  /** The contract's endpoints of this service: path, method, and the statuses it documents. */
  private static final Map<String, Map<String, String[]>> CONTRACT =
      Map.ofEntries(
          Map.entry("/api/stock/{skuId}", Map.of("get", new String[] {"200", "400", "404", "503"})),
          Map.entry("/api/stock", Map.of("get", new String[] {"200", "400", "503"})),
          Map.entry("/api/stock/{skuId}/stream", Map.of("get", new String[] {"200", "404", "503"})),
          Map.entry(
              "/api/reservations/{reservationId}",
              Map.of("get", new String[] {"200", "400", "404", "503"})),
          Map.entry(
              "/api/audit/reservations/{reservationId}",
              Map.of("get", new String[] {"200", "400", "404"})),
          Map.entry(
              "/api/audit/skus/{skuId}", Map.of("get", new String[] {"200", "400", "404", "503"})),
          Map.entry(
              "/api/audit/skus/{skuId}/decisions",
              Map.of("get", new String[] {"200", "400", "404", "503"})),
          Map.entry(
              "/api/audit/users/{userId}/decisions", Map.of("get", new String[] {"200", "400"})),
          Map.entry("/api/reconciliation", Map.of("get", new String[] {"200", "503"})),
          Map.entry(
              "/api/reconciliation/skus/{skuId}",
              Map.of("get", new String[] {"200", "404", "503"})),
          Map.entry("/api/replays", Map.of("post", new String[] {"202", "409"})),
          Map.entry("/api/replays/{replayId}", Map.of("get", new String[] {"200", "404"})),
          Map.entry("/api/events", Map.of("get", new String[] {"200", "400", "503"})),
          Map.entry("/api/events/stream", Map.of("get", new String[] {"200", "400", "503"})));

  @LocalServerPort private int port;

  @Test
  void describesEveryEndpointOfTheContractWithItsOutcomes() {
    ResponseEntity<JsonNode> docs = new ApiClient(port).withoutToken().get("/v3/api-docs");

    assertThat(docs.getStatusCode().value()).isEqualTo(200);
    JsonNode api = docs.getBody();
    assertThat(api.get("info").get("title").asString()).isEqualTo("Stockade query-side");
    CONTRACT.forEach(
        (path, methods) ->
            methods.forEach(
                (method, statuses) -> {
                  JsonNode operation = api.get("paths").path(path).path(method);
                  assertThat(operation.isObject()).as(method + " " + path).isTrue();
                  JsonNode responses = operation.get("responses");
                  assertThat(responses.propertyNames()).as(method + " " + path).contains(statuses);
                  for (String status : statuses) {
                    if (!status.startsWith("2")) {
                      assertThat(responses.get(status).get("content").propertyNames())
                          .as(method + " " + path + " " + status)
                          .containsExactly("application/problem+json");
                    }
                  }
                }));
  }

  @Test
  void describesTheReservationViewWithTheUnitsSoldAndThoseAPartialConfirmationGaveBack() {
    JsonNode api = new ApiClient(port).withoutToken().get("/v3/api-docs").getBody();

    JsonNode view = api.get("components").get("schemas").get("ReservationView");
    assertThat(
            api.get("paths")
                .get("/api/reservations/{reservationId}")
                .get("get")
                .get("responses")
                .get("200")
                .toString())
        .contains("#/components/schemas/ReservationView");
    JsonNode members = view.get("properties");
    assertThat(members.propertyNames())
        .contains(
            "reservationId",
            "userId",
            "status",
            "lines",
            "createdAt",
            "expiresAt",
            "confirmedAt",
            "confirmedLines",
            "releasedAt",
            "releaseReason");
    JsonNode confirmedLines = members.get("confirmedLines");
    assertThat(confirmedLines.get("items").get("$ref").asString())
        .isEqualTo("#/components/schemas/ReservationLine");
    assertThat(confirmedLines.get("description").asString())
        .contains("units sold")
        .contains("null until confirmed");
    assertThat(members.get("releaseReason").get("description").asString())
        .contains("NOT_CONFIRMED");
    assertThat(members.get("status").get("description").asString())
        .contains("confirmed in part is CONFIRMED");
    assertThat(members.get("expiresAt").get("description").asString()).contains("extension");
  }

  /**
   * The description equals docs/openapi/query-side.json, so that a change to the API is a reviewed
   * change to that file; {@code -Dstockade.openapi.write=true} rewrites the file instead.
   */
  @Test
  void matchesThePublishedDocument() {
    PublishedApiDocument.check(port, "query-side");
  }

  @Test
  void servesSwaggerUi() {
    ResponseEntity<String> page =
        new ApiClient(port).withoutToken().getText("/swagger-ui/index.html");

    assertThat(page.getStatusCode().value()).isEqualTo(200);
    assertThat(page.getBody()).contains("Swagger UI");
  }
}
