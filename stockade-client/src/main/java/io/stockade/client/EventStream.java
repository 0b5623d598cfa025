package io.stockade.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.Consumer;
import tools.jackson.databind.JavaType;

/**
 * A stream of server-sent events read on a thread of its own ({@code GET /api/events/stream},
 * {@code GET /api/stock/{skuId}/stream}): each event of the expected name is read as its type and
 * handed to the handler, in order. It ends when {@link #close} is called, when the service ends it
 * (a stream's timeout, a restart), when it is refused (a problem: {@link #failure}), or when the
 * handler throws. Not retried: reconnect with the last id seen.
 */
public final class EventStream implements AutoCloseable {

  private final Thread reader;
  private volatile InputStream body;
  private volatile boolean closed;
  private volatile Throwable failure;
  private volatile String lastId;

  private <T> EventStream(
      HttpClient http, HttpRequest request, String name, JavaType type, Consumer<T> handler) {
    reader = new Thread(() -> read(http, request, name, type, handler), "stockade-event-stream");
    reader.setDaemon(true);
  }

  static <T> EventStream open(
      HttpClient http, HttpRequest request, String name, JavaType type, Consumer<T> handler) {
    EventStream stream = new EventStream(http, request, name, type, handler);
    stream.reader.start();
    return stream;
  }

  private <T> void read(
      HttpClient http, HttpRequest request, String name, JavaType type, Consumer<T> handler) {
    try {
      HttpResponse<InputStream> response =
          http.send(request, HttpResponse.BodyHandlers.ofInputStream());
      body = response.body();
      if (response.statusCode() != 200) {
        try (InputStream in = response.body()) {
          throw ApiCalls.problem(
              request, response.statusCode(), response.headers(), in.readAllBytes());
        }
      }
      if (closed) {
        // Closed while the answer was on its way: close() found no body to close.
        response.body().close();
        return;
      }
      try (BufferedReader lines =
          new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
        String id = null;
        String event = "message";
        StringBuilder data = new StringBuilder();
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          if (line.isEmpty()) {
            if (data.length() > 0 && event.equals(name)) {
              handler.accept(ApiCalls.JSON.readValue(data.toString(), type));
              if (id != null) {
                lastId = id;
              }
            }
            id = null;
            event = "message";
            data.setLength(0);
          } else if (line.startsWith("data:")) {
            if (data.length() > 0) {
              data.append('\n');
            }
            data.append(field(line, "data:"));
          } else if (line.startsWith("event:")) {
            event = field(line, "event:");
          } else if (line.startsWith("id:")) {
            id = field(line, "id:");
          }
        }
      }
    } catch (IOException e) {
      if (!closed) {
        failure = new StockadeClientException(request.uri() + ": the stream broke: " + e, -1, e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      if (!closed) {
        failure = e;
      }
    }
  }

  private static String field(String line, String prefix) {
    String value = line.substring(prefix.length());
    return value.startsWith(" ") ? value.substring(1) : value;
  }

  /** Whether it still reads. */
  public boolean isOpen() {
    return reader.isAlive();
  }

  /** Why it ended, when it did not end by {@link #close} or by the service ending it. */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(failure);
  }

  /** The {@code id} of the last event handed on: the {@code Last-Event-ID} to reconnect with. */
  public Optional<String> lastId() {
    return Optional.ofNullable(lastId);
  }

  @Override
  public void close() {
    closed = true;
    InputStream in = body;
    if (in != null) {
      try {
        in.close();
      } catch (IOException ignored) {
        // Closed as far as this stream is concerned.
      }
    }
    reader.interrupt();
  }
}
