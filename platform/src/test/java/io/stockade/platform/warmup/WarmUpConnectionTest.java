package io.stockade.platform.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The warm-up's hand-written HTTP/1.1 connection against the JDK's HTTP server: bodies with a
 * length and in chunks read to their end (the next answer on the same connection is the next
 * request's), the request's method, path, token and body as sent, and a connection the server
 * closes opened again for the next request.
 */
class WarmUpConnectionTest {

  private HttpServer server;
  private final List<String> seen = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          seen.add(
              exchange.getRequestMethod()
                  + " "
                  + exchange.getRequestURI()
                  + " "
                  + exchange.getRequestHeaders().getFirst("Authorization")
                  + " "
                  + body);
          byte[] answer = ("{\"echo\":\"" + body.length() + "\"}").getBytes(StandardCharsets.UTF_8);
          String path = exchange.getRequestURI().getPath();
          if (path.endsWith("/close")) {
            exchange.getResponseHeaders().add("Connection", "close");
          }
          int status = path.contains("refused") ? 409 : 200;
          // 0: chunked; else the length.
          exchange.sendResponseHeaders(status, path.contains("chunked") ? 0 : answer.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer);
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void readsEachAnswerToItsEndAndKeepsTheConnectionUntilTheServerClosesIt() throws IOException {
    try (WarmUpConnection connection =
        new WarmUpConnection("127.0.0.1", server.getAddress().getPort())) {
      assertThat(connection.send("GET", "/health", null, null)).isEqualTo(200);
      assertThat(connection.send("POST", "/refused/chunked", "{\"a\":1}", "t1")).isEqualTo(409);
      assertThat(connection.send("POST", "/refused", "{\"b\":22}", "t2")).isEqualTo(409);
      assertThat(connection.send("GET", "/chunked/close", null, null)).isEqualTo(200);
      assertThat(connection.send("POST", "/after-close", "{}", "t3")).isEqualTo(200);
    }

    assertThat(seen)
        .containsExactly(
            "GET /health null ",
            "POST /refused/chunked Bearer t1 {\"a\":1}",
            "POST /refused Bearer t2 {\"b\":22}",
            "GET /chunked/close null ",
            "POST /after-close Bearer t3 {}");
  }
}
