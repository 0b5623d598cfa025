package io.stockade.command;

import io.stockade.platform.testing.ApiClient;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

/** The command side's requests, as the rate limits' tests send them. */
public record CommandCalls(ApiClient http) {

  public ResponseEntity<JsonNode> register(String sku, int stock) {
    return http.send(HttpMethod.PUT, "/api/skus/" + sku, "{\"initialStock\":" + stock + "}");
  }

  /** Reserves one unit of {@code sku}. */
  public ResponseEntity<JsonNode> reserve(String reservationId, String userId, String sku) {
    return http.send(
        HttpMethod.POST,
        "/api/reservations",
        "{\"reservationId\":\""
            + reservationId
            + "\",\"userId\":\""
            + userId
            + "\",\"lines\":[{\"skuId\":\""
            + sku
            + "\",\"quantity\":1}]}");
  }

  public ResponseEntity<JsonNode> confirm(String reservationId) {
    return http.send(HttpMethod.POST, "/api/reservations/" + reservationId + "/confirm", null);
  }

  public ResponseEntity<JsonNode> release(String reservationId) {
    return http.send(HttpMethod.POST, "/api/reservations/" + reservationId + "/release", null);
  }

  public static int status(ResponseEntity<?> response) {
    return response.getStatusCode().value();
  }
}
