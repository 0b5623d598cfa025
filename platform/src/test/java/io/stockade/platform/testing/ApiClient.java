package io.stockade.platform.testing;

import java.util.Map;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/**
 * A plain HTTP client for the services' tests: every status comes back as a response (none is
 * thrown), bodies as JSON trees.
 */
public final class ApiClient {

  private final RestClient http;

  public ApiClient(int port) {
    http =
        RestClient.builder()
            .baseUrl("http://localhost:" + port)
            .defaultStatusHandler(status -> true, (request, response) -> {})
            .build();
  }

  public ResponseEntity<JsonNode> get(String path) {
    return http.get().uri(path).retrieve().toEntity(JsonNode.class);
  }

  /** The body of a GET as text (for what is not JSON, such as Prometheus's format). */
  public ResponseEntity<String> getText(String path) {
    return http.get().uri(path).retrieve().toEntity(String.class);
  }

  /** Sends {@code jsonBody}, or no body at all when it is {@code null}. */
  public ResponseEntity<JsonNode> send(HttpMethod method, String path, String jsonBody) {
    return send(method, path, jsonBody, Map.of());
  }

  /** Sends {@code jsonBody} (or none) with these request headers. */
  public ResponseEntity<JsonNode> send(
      HttpMethod method, String path, String jsonBody, Map<String, String> headers) {
    RestClient.RequestBodySpec request = http.method(method).uri(path);
    headers.forEach(request::header);
    if (jsonBody != null) {
      request.contentType(MediaType.APPLICATION_JSON).body(jsonBody);
    }
    return request.retrieve().toEntity(JsonNode.class);
  }
}
