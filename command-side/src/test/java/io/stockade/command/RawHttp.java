package io.stockade.command;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * An HTTP/1.1 response read straight off a socket: for requests no client library sends as they are
 * (a Content-Length that the body never reaches, a body that is still being sent).
 */
record RawHttp(int status, Map<String, String> headers, String body) {

  /** Reads one response: status line, headers, then a body of Content-Length or chunked. */
  static RawHttp read(InputStream in) throws IOException {
    String[] head = readUntilBlankLine(in).split("\r\n");
    int status = Integer.parseInt(head[0].split(" ")[1]);
    Map<String, String> headers = new TreeMap<>();
    for (int i = 1; i < head.length; i++) {
      int colon = head[i].indexOf(':');
      headers.put(
          head[i].substring(0, colon).toLowerCase(Locale.ROOT),
          head[i].substring(colon + 1).trim());
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      for (int size; (size = Integer.parseInt(readLine(in).trim(), 16)) > 0; readLine(in)) {
        body.write(in.readNBytes(size));
      }
    } else if (headers.containsKey("content-length")) {
      body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
    }
    return new RawHttp(status, headers, body.toString(StandardCharsets.UTF_8));
  }

  private static String readUntilBlankLine(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    for (String line; !(line = readLine(in)).isEmpty(); ) {
      head.append(line).append("\r\n");
    }
    return head.toString();
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b; (b = in.read()) != '\n'; ) {
      if (b < 0) {
        throw new IOException("connection closed in the middle of a response");
      }
      line.write(b);
    }
    return line.toString(StandardCharsets.US_ASCII).stripTrailing();
  }
}
