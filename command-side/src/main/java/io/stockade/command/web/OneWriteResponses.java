package io.stockade.command.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Lets the container send each of the command side's answers in one write, with a {@code
 * Content-Length}, instead of two (a chunk, then the end of the chunked body).
 *
 * <p>Spring MVC flushes the response as soon as its message converter has written the body. A flush
 * commits the response before its length is known, so Tomcat sends the headers and the body as a
 * chunk at once, and the last chunk in a second write when the request ends: a socket write a
 * request more, which a refused reservation, whose whole work is a few small writes and reads, pays
 * for. Here those flushes are deferred to the end of the request: the body stays in the container's
 * response buffer (8 KB), and the container writes headers and body together, with their length,
 * when the request ends. A body larger than the buffer is still sent as it fills, chunked, as
 * before. The command side has no streaming response (no server-sent events), which alone would
 * need its flushes.
 */
final class OneWriteResponses extends OncePerRequestFilter {

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    chain.doFilter(request, new Deferred(response));
  }

  /** A response whose explicit flushes wait for the end of the request. */
  private static final class Deferred extends HttpServletResponseWrapper {

    private ServletOutputStream body;

    Deferred(HttpServletResponse response) {
      super(response);
    }

    @Override
    public void flushBuffer() {
      // Committed by the container when the request ends, or when its buffer fills.
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
      if (body == null) {
        body = new Unflushed(super.getOutputStream());
      }
      return body;
    }
  }

  private static final class Unflushed extends ServletOutputStream {

    private final ServletOutputStream out;

    Unflushed(ServletOutputStream out) {
      this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() {
      // As flushBuffer: the container sends the body when the request ends.
    }

    @Override
    public void close() throws IOException {
      out.close();
    }

    @Override
    public boolean isReady() {
      return out.isReady();
    }

    @Override
    public void setWriteListener(WriteListener listener) {
      out.setWriteListener(listener);
    }
  }
}
