package io.stockade.query.dashboard;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in for the command side's sale commands, for the dashboard's browser test: the query
 * side's test cannot run the command side in its process. It answers a CORS preflight from any
 * origin, answers a SKU's state ({@code GET}) and its draw ({@code GET .../draw}) with the JSON the
 * test set, and records each command it receives (method, path, {@code Authorization}, body) and
 * answers it with the status and JSON the test set. The real command side's CORS and commands are
 * tested in the command side's own tests ({@code CrossOriginHttpIntegrationTest}, {@code
 * SaleHttpIntegrationTest}).
 */
final class StubCommandSide implements AutoCloseable {

  /** A command the stub received. */
  record Received(String method, String path, String authorization, String body) {}

  private final HttpServer server;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private volatile int status = 200;
  private volatile String contentType = "application/json";
  private volatile String answer = "{}";
  private volatile String sku = "{}";
  private volatile String draw = "{}";

  StubCommandSide() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/api/", this::handle);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** The next commands are answered so. */
  void answer(int status, String contentType, String json) {
    this.status = status;
    this.contentType = contentType;
    this.answer = json;
  }

  /** A SKU's state, as {@code GET /api/skus/{skuId}} answers it from now on. */
  void sku(String json) {
    this.sku = json;
  }

  /** A SKU's draw, as {@code GET /api/skus/{skuId}/draw} answers it from now on. */
  void draw(String json) {
    this.draw = json;
  }

  List<Received> received() {
    return List.copyOf(received);
  }

  private void handle(HttpExchange exchange) throws IOException {
    String origin = exchange.getRequestHeaders().getFirst("Origin");
    if (origin != null) {
      exchange.getResponseHeaders().add("Access-Control-Allow-Origin", origin);
    }
    if (exchange.getRequestMethod().equals("OPTIONS")) {
      exchange.getResponseHeaders().add("Access-Control-Allow-Methods", "GET, POST, PUT");
      exchange
          .getResponseHeaders()
          .add("Access-Control-Allow-Headers", "authorization, content-type");
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
      return;
    }
    if (exchange.getRequestMethod().equals("GET")) {
      String json = exchange.getRequestURI().getPath().endsWith("/draw") ? draw : sku;
      byte[] state = json.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, state.length);
      exchange.getResponseBody().write(state);
      exchange.close();
      return;
    }
    received.add(
        new Received(
            exchange.getRequestMethod(),
            exchange.getRequestURI().getPath(),
            exchange.getRequestHeaders().getFirst("Authorization"),
            new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
    byte[] body = answer.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", contentType);
    exchange.sendResponseHeaders(status, body.length);
    exchange.getResponseBody().write(body);
    exchange.close();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
