package io.stockade.platform.warmup;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One kept-alive HTTP/1.1 connection of the warm-up to the service's own port, written by hand: a
 * request is one write of its bytes, an answer is read as far as its status and its body's end (a
 * {@code Content-Length}, chunks, or the connection's end). The JDK's {@code HttpClient} would do,
 * but its own code costs several times the service's refusal on a cold JVM and competes with the
 * service for the JIT's compiler threads, so the warm-up it drove answered a fraction of the
 * requests the same seconds allow (bench/wrk, docs/performance.md).
 */
final class WarmUpConnection implements Closeable {

  private static final int TIMEOUT_MILLIS = 5_000;

  private final String host;
  private final int port;
  private Socket socket;
  private InputStream in;
  private OutputStream out;

  WarmUpConnection(String host, int port) {
    this.host = host;
    this.port = port;
  }

  /** The status of the answer to this request (its body is read and dropped). */
  int send(String method, String path, String jsonBody, String token) throws IOException {
    byte[] body = jsonBody == null ? new byte[0] : jsonBody.getBytes(StandardCharsets.UTF_8);
    StringBuilder head =
        new StringBuilder(256)
            .append(method)
            .append(' ')
            .append(path)
            .append(" HTTP/1.1\r\nHost: ")
            .append(host)
            .append(':')
            .append(port)
            .append("\r\nAccept: application/json, application/problem+json\r\n");
    if (token != null) {
      head.append("Authorization: Bearer ").append(token).append("\r\n");
    }
    if (jsonBody != null) {
      head.append("Content-Type: application/json\r\n");
    }
    if (jsonBody != null || !method.equals("GET")) {
      head.append("Content-Length: ").append(body.length).append("\r\n");
    }
    head.append("\r\n");
    byte[] headBytes = head.toString().getBytes(StandardCharsets.US_ASCII);
    byte[] request = new byte[headBytes.length + body.length];
    System.arraycopy(headBytes, 0, request, 0, headBytes.length);
    System.arraycopy(body, 0, request, headBytes.length, body.length);
    if (socket == null) {
      open();
    }
    out.write(request);
    out.flush();
    return readAnswer();
  }

  private void open() throws IOException {
    Socket opened = new Socket();
    try {
      opened.setTcpNoDelay(true);
      opened.setSoTimeout(TIMEOUT_MILLIS);
      // The host as a URI writes it: an IPv6 address in brackets, as the Host header wants it.
      String address = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
      opened.connect(new InetSocketAddress(address, port), TIMEOUT_MILLIS);
      in = new BufferedInputStream(opened.getInputStream(), 8192);
      out = opened.getOutputStream();
      socket = opened;
    } catch (IOException e) {
      opened.close();
      throw e;
    }
  }

  private int readAnswer() throws IOException {
    String statusLine = line();
    if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12) {
      throw new IOException("not an HTTP answer: " + statusLine);
    }
    int status = Integer.parseInt(statusLine.substring(9, 12));
    long length = -1;
    boolean chunked = false;
    boolean closes = statusLine.startsWith("HTTP/1.0");
    for (String header = line(); !header.isEmpty(); header = line()) {
      int colon = header.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String name = header.substring(0, colon).trim();
      String value = header.substring(colon + 1).trim();
      if (name.equalsIgnoreCase("Content-Length")) {
        length = Long.parseLong(value);
      } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
        chunked = value.toLowerCase().contains("chunked");
      } else if (name.equalsIgnoreCase("Connection")) {
        closes = value.equalsIgnoreCase("close");
      }
    }
    if (chunked) {
      for (long size = chunkSize(); size > 0; size = chunkSize()) {
        skip(size);
        line();
      }
      for (String trailer = line(); !trailer.isEmpty(); trailer = line()) {
        // trailers are dropped
      }
    } else if (length >= 0) {
      skip(length);
    } else if (status >= 200 && status != 204 && status != 304) {
      while (in.read() >= 0) {
        // a body without a length ends with the connection
      }
      closes = true;
    }
    if (closes) {
      close();
    }
    return status;
  }

  private long chunkSize() throws IOException {
    String size = line();
    int extension = size.indexOf(';');
    return Long.parseLong((extension < 0 ? size : size.substring(0, extension)).trim(), 16);
  }

  private void skip(long bytes) throws IOException {
    for (long left = bytes; left > 0; ) {
      long skipped = in.skip(left);
      if (skipped <= 0) {
        if (in.read() < 0) {
          throw new EOFException("the answer ended early");
        }
        skipped = 1;
      }
      left -= skipped;
    }
  }

  private String line() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(64);
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new EOFException("the connection ended in an answer");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }

  /** Ends the connection; the next request opens another. */
  @Override
  public void close() {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException e) {
        // nothing to do
      }
      socket = null;
      in = null;
      out = null;
    }
  }
}
