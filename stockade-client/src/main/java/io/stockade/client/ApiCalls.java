package io.stockade.client;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

/**
 * One service's calls: sends a request, retries it after a 503 or 429, or a send that got no
 * answer, as the {@link RetryPolicy} allows (the same bytes each time), reads a success into its
 * type and turns a problem into a {@link StockadeProblemException}.
 */
final class ApiCalls {

  /**
   * Members a newer service adds are ignored, as the contract allows it to add them; a member given
   * twice is an answer that cannot be trusted (which of the two is meant?).
   */
  static final JsonMapper JSON =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  private static final List<String> RFC_9457_MEMBERS =
      List.of("type", "title", "status", "detail", "instance");

  private final URI base;
  private final ClientSettings settings;

  ApiCalls(URI base, ClientSettings settings) {
    String text = base.toString();
    this.base = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    this.settings = settings;
  }

  ClientSettings settings() {
    return settings;
  }

  static JavaType type(Class<?> type) {
    return JSON.getTypeFactory().constructType(type);
  }

  static JavaType listOf(Class<?> element) {
    return JSON.getTypeFactory().constructCollectionType(List.class, element);
  }

  /** A path segment or a query value, encoded. */
  static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  <T> T get(String path, Class<T> type) {
    return call("GET", path, null, type);
  }

  <T> T call(String method, String path, Object body, Class<T> type) {
    return this.<T>call(method, path, body, type(type));
  }

  /** A success and its HTTP status. */
  record Answered<T>(int status, T body) {}

  /**
   * @param body serialized as JSON once, and sent as it is at every attempt; null for none
   */
  <T> T call(String method, String path, Object body, JavaType type) {
    return this.<T>answer(method, path, body, type).body();
  }

  /** As {@link #call(String, String, Object, JavaType)}, with the success's status. */
  <T> Answered<T> answer(String method, String path, Object body, JavaType type) {
    URI uri = URI.create(base + path);
    byte[] json = body == null ? null : JSON.writeValueAsBytes(body);
    Duration waited = Duration.ZERO;
    int failedSends = 0;
    for (int attempt = 1; ; attempt++) {
      HttpResponse<byte[]> response;
      try {
        response = send(method, uri, json);
      } catch (StockadeClientException noAnswer) {
        Duration wait = settings.retries().afterFailedSend(++failedSends);
        if (noAnswer.getCause() instanceof IOException
            && settings.retries().allows(attempt, waited, wait)) {
          settings.listener().retrying(method, uri, attempt, 0, null, wait);
          pause(wait, noAnswer);
          waited = waited.plus(wait);
          continue;
        }
        throw noAnswer;
      }
      int status = response.statusCode();
      if (status < 300) {
        return new Answered<>(status, read(response, type));
      }
      StockadeProblemException problem =
          problem(response.request(), status, response.headers(), response.body());
      Optional<Duration> wait = problem.retryAfter();
      if ((status == 503 || status == 429)
          && wait.isPresent()
          && settings.retries().allows(attempt, waited, wait.get())) {
        settings.listener().retrying(method, uri, attempt, status, problem.code(), wait.get());
        pause(wait.get(), problem);
        waited = waited.plus(wait.get());
        continue;
      }
      throw problem;
    }
  }

  /** A request to read a stream of server-sent events, for {@link ServerSentEvents}. */
  HttpRequest streamRequest(String path, Map<String, String> headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Authorization", "Bearer " + settings.token())
            .header("Accept", "text/event-stream")
            .GET();
    headers.forEach(request::header);
    return request.build();
  }

  private HttpResponse<byte[]> send(String method, URI uri, byte[] json) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(settings.requestTimeout())
            .header("Authorization", "Bearer " + settings.token())
            .header("Accept", "application/json, application/problem+json");
    if (json == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofByteArray(json));
    }
    try {
      return settings.http().send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new StockadeClientException(method + " " + uri + " failed: " + e, -1, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StockadeClientException(method + " " + uri + " was interrupted", -1, e);
    }
  }

  private void pause(Duration wait, RuntimeException problem) {
    try {
      settings.pause().pause(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problem.addSuppressed(e);
      throw problem;
    }
  }

  private static <T> T read(HttpResponse<byte[]> response, JavaType type) {
    try {
      return JSON.readValue(response.body(), type);
    } catch (JacksonException e) {
      throw new StockadeClientException(
          "The answer of " + response.request().uri() + " is not the JSON expected: " + e,
          response.statusCode(),
          e);
    }
  }

  /** The problem of an answer that is not a success; a client exception when it has none. */
  @SuppressWarnings("unchecked")
  static StockadeProblemException problem(
      HttpRequest request, int status, HttpHeaders headers, byte[] body) {
    Map<String, Object> members;
    try {
      members = JSON.readValue(body, Map.class);
    } catch (JacksonException | IllegalArgumentException e) {
      members = null;
    }
    if (members == null || !(members.get("type") instanceof String type)) {
      throw new StockadeClientException(
          request.method()
              + " "
              + request.uri()
              + " answered "
              + status
              + " without a problem: "
              + new String(body, StandardCharsets.UTF_8),
          status,
          null);
    }
    Map<String, Object> extensions = new LinkedHashMap<>(members);
    RFC_9457_MEMBERS.forEach(extensions::remove);
    extensions.values().removeIf(value -> value == null);
    return new StockadeProblemException(
        type,
        (String) members.get("title"),
        status,
        (String) members.get("detail"),
        extensions,
        headers.firstValue("Retry-After").flatMap(ApiCalls::retryAfter).orElse(null));
  }

  /** {@code Retry-After} in seconds, or as an HTTP date (RFC 9110). */
  static Optional<Duration> retryAfter(String value) {
    String text = value.trim();
    try {
      long seconds = Long.parseLong(text);
      return seconds < 0 ? Optional.empty() : Optional.of(Duration.ofSeconds(seconds));
    } catch (NumberFormatException notSeconds) {
      try {
        Duration until =
            Duration.between(
                ZonedDateTime.now(),
                ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME));
        return Optional.of(until.isNegative() ? Duration.ZERO : until);
      } catch (DateTimeParseException notADate) {
        return Optional.empty();
      }
    }
  }
}
