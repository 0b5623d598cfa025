package io.stockade.platform.testing;

import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/**
 * A plain HTTP client for the services' tests: every status comes back as a response (none is
 * thrown), bodies as JSON trees read from the raw text by {@link StrictJson}, so that every answer
 * of every test that uses it (each problem among them) is checked for a member named twice. It
 * sends a bearer token with every role ({@link TestTokens#ALL_ROLES}) unless told otherwise ({@link
 * #withToken}, {@link #withoutToken}).
 */
public final class ApiClient {

  private final int port;
  private final RestClient http;

  public ApiClient(int port) {
    this(port, TestTokens.ALL_ROLES);
  }

  private ApiClient(int port, String token) {
    this.port = port;
    RestClient.Builder builder =
        RestClient.builder()
            .baseUrl("http://localhost:" + port)
            .defaultStatusHandler(status -> true, (request, response) -> {});
    if (token != null) {
      builder.defaultHeader(HttpHeaders.AUTHORIZATION, "Bearer " + token);
    }
    http = builder.build();
  }

  /** The JSON body of {@code POST /api/reservations} for one line. */
  public static String reservation(String id, String user, String sku, int quantity) {
    return "{\"reservationId\":\""
        + id
        + "\",\"userId\":\""
        + user
        + "\",\"lines\":[{\"skuId\":\""
        + sku
        + "\",\"quantity\":"
        + quantity
        + "}]}";
  }

  /** The same service, with {@code Authorization: Bearer <token>} on every request. */
  public ApiClient withToken(String token) {
    return new ApiClient(port, token);
  }

  /** The same service, without an {@code Authorization} header. */
  public ApiClient withoutToken() {
    return new ApiClient(port, null);
  }

  public ResponseEntity<JsonNode> get(String path) {
    return json(http.get().uri(path).retrieve().toEntity(String.class));
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
    RestClient.RequestBodySpec request = request(method, path, jsonBody);
    headers.forEach(request::header);
    return json(request.retrieve().toEntity(String.class));
  }

  /** Sends the request as {@link #send} does and answers its status, whatever its body. */
  public int status(HttpMethod method, String path, String jsonBody) {
    return request(method, path, jsonBody).retrieve().toBodilessEntity().getStatusCode().value();
  }

  private static ResponseEntity<JsonNode> json(ResponseEntity<String> raw) {
    String body = raw.getBody();
    JsonNode tree = body == null || body.isBlank() ? null : StrictJson.read(body);
    return new ResponseEntity<>(tree, raw.getHeaders(), raw.getStatusCode());
  }

  private RestClient.RequestBodySpec request(HttpMethod method, String path, String jsonBody) {
    RestClient.RequestBodySpec request = http.method(method).uri(path);
    if (jsonBody != null) {
      request.contentType(MediaType.APPLICATION_JSON).body(jsonBody);
    }
    return request;
  }
}
