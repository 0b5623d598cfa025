package io.stockade.query.feed;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A client's reading of a server-sent event stream, as a browser's EventSource parses it: lines
 * read on a thread of its own, events (id, event name, data) and comments handed out in order.
 */
final class SseStream implements AutoCloseable {

  /** One event of the stream. */
  record Event(String id, String name, String data) {}

  private static final Object END = new Object();

  private final HttpResponse<InputStream> response;
  private final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
  private final Thread reader;

  SseStream(HttpResponse<InputStream> response) {
    this.response = response;
    reader = new Thread(this::read, "sse-stream-reader");
    reader.setDaemon(true);
    reader.start();
  }

  HttpResponse<InputStream> response() {
    return response;
  }

  /** The next event, skipping comments; fails when none comes within {@code wait}. */
  Event next(Duration wait) throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      Object item = received.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (item == null) {
        throw new AssertionError("No event within " + wait);
      }
      if (item == END) {
        throw new AssertionError("The stream ended");
      }
      if (item instanceof Event event) {
        return event;
      }
    }
  }

  /** The next comment (a line beginning with a colon), skipping events. */
  String nextComment(Duration wait) throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      Object item = received.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (item == null) {
        throw new AssertionError("No comment within " + wait);
      }
      if (item == END) {
        throw new AssertionError("The stream ended");
      }
      if (item instanceof String comment) {
        return comment;
      }
    }
  }

  private void read() {
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      String id = null;
      String name = null;
      StringBuilder data = null;
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (line.isEmpty()) {
          if (data != null) {
            received.add(new Event(id, name, data.toString()));
          }
          id = null;
          name = null;
          data = null;
        } else if (line.startsWith(":")) {
          received.add(line.substring(1));
        } else {
          int colon = line.indexOf(':');
          String field = colon < 0 ? line : line.substring(0, colon);
          String value = colon < 0 ? "" : line.substring(colon + 1);
          if (value.startsWith(" ")) {
            value = value.substring(1);
          }
          switch (field) {
            case "id" -> id = value;
            case "event" -> name = value;
            case "data" ->
                data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
            default -> {}
          }
        }
      }
    } catch (IOException closed) {
      // Closed by the test, or by the server.
    } finally {
      received.add(END);
    }
  }

  @Override
  public void close() throws IOException {
    response.body().close();
    reader.interrupt();
  }
}
