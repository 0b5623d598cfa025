package io.stockade.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * When the client retries and what it sends again, against a stub that answers a script of statuses
 * (the services themselves cannot be made to answer 503 at will). The waits are recorded instead of
 * slept, so that the test pins the waits the client chose without timing anything.
 */
class RetriesTest {

  private record Scripted(int status, String retryAfter, String body) {}

  private record Received(String method, String path, String authorization, String body) {}

  private final Deque<Scripted> script = new ArrayDeque<>();
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final List<Duration> waits = new CopyOnWriteArrayList<>();
  private HttpServer stub;

  @BeforeEach
  void startTheStub() throws IOException {
    stub = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    stub.createContext("/", this::answer);
    stub.start();
  }

  @AfterEach
  void stopTheStub() {
    stub.stop(0);
  }

  private synchronized void answer(HttpExchange exchange) throws IOException {
    received.add(
        new Received(
            exchange.getRequestMethod(),
            exchange.getRequestURI().toString(),
            exchange.getRequestHeaders().getFirst("Authorization"),
            new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
    Scripted next = script.size() > 1 ? script.poll() : script.peek();
    byte[] body = next.body().getBytes(StandardCharsets.UTF_8);
    exchange
        .getResponseHeaders()
        .add("Content-Type", next.status() < 300 ? "application/json" : "application/problem+json");
    if (next.retryAfter() != null) {
      exchange.getResponseHeaders().add("Retry-After", next.retryAfter());
    }
    exchange.sendResponseHeaders(next.status(), body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static Scripted problem(int status, String code, String retryAfter, String members) {
    return new Scripted(
        status,
        retryAfter,
        """
        {"type": "https://stockade.io/problems/%s", "title": "t", "status": %d, "detail": "d"%s}"""
            .formatted(code, status, members));
  }

  private static final Scripted RESERVED =
      new Scripted(
          201,
          null,
          """
          {"reservationId": "O-1", "status": "RESERVED", "lines": [{"skuId": "1001", "quantity": 2}],
           "expiresAt": "2030-01-01T00:15:00Z", "notInTheContractYet": true}""");

  private CommandClient client(RetryPolicy retries) {
    return CommandClient.at(
        URI.create("http://127.0.0.1:" + stub.getAddress().getPort()),
        ClientSettings.bearer("the-token").withRetries(retries).withPause(waits::add));
  }

  private static final ReservationRequest ORDER =
      ReservationRequest.of("O-1", "u-42", new ReservationLine("1001", 2)).withHoldSeconds(900L);

  @Test
  void retries503And429AfterTheirRetryAfterWithTheSameRequest() {
    script.add(problem(503, "gate-unavailable", "2", ""));
    script.add(problem(429, "rate-limited", "1", ", \"limit\": \"user\", \"userId\": \"u-42\""));
    script.add(RESERVED);
    List<String> told = new CopyOnWriteArrayList<>();

    ReservationOutcome outcome =
        CommandClient.at(
                URI.create("http://127.0.0.1:" + stub.getAddress().getPort()),
                ClientSettings.bearer("the-token")
                    .withPause(waits::add)
                    .withRetryListener(
                        (method, uri, attempt, status, code, wait) ->
                            told.add(attempt + " " + status + " " + code + " " + wait)))
            .reserve(ORDER);

    assertThat(outcome.status()).isEqualTo("RESERVED");
    assertThat(outcome.lines()).containsExactly(new ReservationLine("1001", 2));
    assertThat(waits).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(1));
    assertThat(told).containsExactly("1 503 gate-unavailable PT2S", "2 429 rate-limited PT1S");
    assertThat(received).hasSize(3);
    assertThat(received).extracting(Received::body).containsOnly(received.get(0).body());
    assertThat(received.get(0).body()).contains("\"reservationId\":\"O-1\"");
    assertThat(received)
        .extracting(Received::method, Received::path, Received::authorization)
        .containsOnly(
            org.assertj.core.groups.Tuple.tuple("POST", "/api/reservations", "Bearer the-token"));
  }

  @Test
  void retriesASendThatGotNoAnswerAfterADoublingWait() {
    int port = stub.getAddress().getPort();
    stub.stop(0);
    script.add(RESERVED);
    List<String> told = new CopyOnWriteArrayList<>();
    CommandClient client =
        CommandClient.at(
            URI.create("http://127.0.0.1:" + port),
            ClientSettings.bearer("the-token")
                .withRetries(new RetryPolicy(4, Duration.ofSeconds(30), Duration.ofSeconds(1)))
                .withRetryListener(
                    (method, uri, attempt, status, code, wait) ->
                        told.add(attempt + " " + status + " " + code + " " + wait))
                .withPause(
                    wait -> {
                      waits.add(wait);
                      if (waits.size() == 2) {
                        // The service is back, on the same port, before the third send.
                        startOn(port);
                      }
                    }));

    ReservationOutcome outcome = client.reserve(ORDER);

    assertThat(outcome.status()).isEqualTo("RESERVED");
    assertThat(outcome.created()).isTrue();
    assertThat(waits).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
    assertThat(told).containsExactly("1 0 null PT1S", "2 0 null PT2S");
    assertThat(received).hasSize(1);
    assertThat(received.get(0).body()).contains("\"reservationId\":\"O-1\"");
  }

  @Test
  void aSendThatGotNoAnswerIsThrownOnceTheAttemptsAreSpent() {
    int port = stub.getAddress().getPort();
    stub.stop(0);
    CommandClient client =
        CommandClient.at(
            URI.create("http://127.0.0.1:" + port),
            ClientSettings.bearer("the-token")
                .withRetries(new RetryPolicy(3, Duration.ofSeconds(30)))
                .withPause(waits::add));

    assertThatThrownBy(() -> client.reserve(ORDER))
        .isInstanceOf(StockadeClientException.class)
        .hasCauseInstanceOf(IOException.class)
        .extracting(e -> ((StockadeClientException) e).status())
        .isEqualTo(-1);
    assertThat(waits).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
    assertThatThrownBy(() -> client(RetryPolicy.NONE).reserve(ORDER))
        .isInstanceOf(StockadeClientException.class);
    assertThat(waits).hasSize(2);
  }

  @Test
  void aRepeatAnswered200IsNotCreated() {
    script.add(
        new Scripted(
            200,
            null,
            """
            {"reservationId": "O-1", "status": "RESERVED", "lines": [{"skuId": "1001", "quantity": 2}],
             "expiresAt": "2030-01-01T00:15:00Z", "created": true}"""));

    ReservationOutcome outcome = client(RetryPolicy.NONE).reserve(ORDER);

    assertThat(outcome.status()).isEqualTo("RESERVED");
    assertThat(outcome.created()).as("told by the status, not by a member").isFalse();
  }

  private void startOn(int port) {
    try {
      stub = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    stub.createContext("/", this::answer);
    stub.start();
  }

  @Test
  void neverRetriesAnotherStatusEvenWithRetryAfter() {
    script.add(problem(409, "sale-not-open", "30", ", \"skuId\": \"1001\", \"lineIndex\": 0"));

    assertThatThrownBy(() -> client(RetryPolicy.DEFAULT).reserve(ORDER))
        .isInstanceOfSatisfying(
            StockadeProblemException.class,
            problem -> {
              assertThat(problem.status()).isEqualTo(409);
              assertThat(problem.problemCode()).isEqualTo(ProblemCode.SALE_NOT_OPEN);
              assertThat(problem.extension("skuId")).contains("1001");
              assertThat(problem.extensions()).containsEntry("lineIndex", 0);
              assertThat(problem.retryAfter()).contains(Duration.ofSeconds(30));
            });
    assertThat(received).hasSize(1);
    assertThat(waits).isEmpty();
  }

  @Test
  void neverRetriesAServerError() {
    script.add(problem(500, "internal", null, ""));

    assertThatThrownBy(() -> client(RetryPolicy.DEFAULT).confirm("O-1"))
        .isInstanceOfSatisfying(
            StockadeProblemException.class,
            problem -> {
              assertThat(problem.status()).isEqualTo(500);
              assertThat(problem.problemCode()).isEqualTo(ProblemCode.OTHER);
              assertThat(problem.code()).isEqualTo("internal");
            });
    assertThat(received).hasSize(1);
  }

  @Test
  void neverRetriesA503WithoutRetryAfter() {
    script.add(problem(503, "event-store-unavailable", null, ""));

    assertThatThrownBy(() -> client(RetryPolicy.DEFAULT).release("O-1", "CANCELLED"))
        .isInstanceOf(StockadeProblemException.class);
    assertThat(received).hasSize(1);
    assertThat(received.get(0).body()).isEqualTo("{\"reason\":\"CANCELLED\"}");
  }

  @Test
  void stopsAfterItsAttemptsAndThrowsTheLastProblem() {
    script.add(problem(503, "gate-unavailable", "1", ""));

    assertThatThrownBy(() -> client(new RetryPolicy(3, Duration.ofMinutes(1))).reserve(ORDER))
        .isInstanceOfSatisfying(
            StockadeProblemException.class,
            problem -> assertThat(problem.is(ProblemCode.GATE_UNAVAILABLE)).isTrue());
    assertThat(received).hasSize(3);
    assertThat(waits).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
  }

  @Test
  void waitsNoLongerInAllThanItsMaxWait() {
    script.add(problem(429, "rate-limited", "4", ", \"limit\": \"client\""));

    assertThatThrownBy(() -> client(new RetryPolicy(10, Duration.ofSeconds(10))).reserve(ORDER))
        .isInstanceOf(StockadeProblemException.class);
    assertThat(waits).containsExactly(Duration.ofSeconds(4), Duration.ofSeconds(4));
    assertThat(received).hasSize(3);
  }

  @Test
  void aRetryAfterBeyondTheMaxWaitIsNotWaitedFor() {
    script.add(problem(503, "draw-in-progress", "60", ""));

    assertThatThrownBy(() -> client(RetryPolicy.DEFAULT).reserve(ORDER))
        .isInstanceOfSatisfying(
            StockadeProblemException.class,
            problem -> assertThat(problem.retryAfter()).contains(Duration.ofSeconds(60)));
    assertThat(waits).isEmpty();
    assertThat(received).hasSize(1);
  }

  @Test
  void anErrorWithoutAProblemIsAClientException() {
    script.add(new Scripted(502, null, "<html>bad gateway</html>"));

    assertThatThrownBy(() -> client(RetryPolicy.DEFAULT).sku("1001"))
        .isInstanceOfSatisfying(
            StockadeClientException.class, failure -> assertThat(failure.status()).isEqualTo(502));
  }

  @Test
  void anAnswerWithAMemberTwiceIsAClientException() {
    script.add(
        new Scripted(
            200,
            null,
            "{\"reservationId\": \"O-1\", \"status\": \"RELEASED\", \"status\": \"RESERVED\"}"));

    assertThatThrownBy(() -> client(RetryPolicy.DEFAULT).release("O-1"))
        .isInstanceOfSatisfying(
            StockadeClientException.class,
            failure -> assertThat(failure.getMessage()).contains("Duplicate"));
  }
}
