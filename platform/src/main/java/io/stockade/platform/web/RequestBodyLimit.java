package io.stockade.platform.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Refuses a request body larger than {@code stockade.web.max-body-size} with 413 {@code
 * body-too-large} (neither Tomcat nor Spring bounds a JSON body): before reading any of it when its
 * {@code Content-Length} says so, else (a chunked body) as soon as reading passes the limit, so a
 * body is never held beyond the limit.
 */
final class RequestBodyLimit extends OncePerRequestFilter {

  private final long maxBytes;
  private final HandlerExceptionResolver problems;

  RequestBodyLimit(long maxBytes, HandlerExceptionResolver problems) {
    this.maxBytes = maxBytes;
    this.problems = problems;
  }

  /** 413 {@code body-too-large}: the body was not read, nothing was changed. */
  static ProblemException tooLarge(long maxBytes) {
    return new ProblemException(
        HttpStatus.CONTENT_TOO_LARGE,
        ProblemCodes.BODY_TOO_LARGE,
        "Body too large",
        "The request body is larger than " + maxBytes + " bytes; nothing was changed.",
        Map.of("maxBytes", maxBytes));
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    long length = request.getContentLengthLong();
    if (length > maxBytes) {
      // Answered like any other problem, by the application's exception handlers.
      if (problems.resolveException(request, response, null, tooLarge(maxBytes)) == null) {
        response.sendError(HttpStatus.CONTENT_TOO_LARGE.value());
      }
      return;
    }
    chain.doFilter(length < 0 ? new Capped(request, maxBytes) : request, response);
  }

  /** Thrown by the body of a request once reading it passes the limit. */
  static final class TooLarge extends IOException {

    private final long maxBytes;

    TooLarge(long maxBytes) {
      super("request body larger than " + maxBytes + " bytes");
      this.maxBytes = maxBytes;
    }

    ProblemException problem() {
      return tooLarge(maxBytes);
    }
  }

  /** A request of unknown length whose body stops being read at the limit. */
  private static final class Capped extends HttpServletRequestWrapper {

    private final long maxBytes;
    private ServletInputStream body;

    Capped(HttpServletRequest request, long maxBytes) {
      super(request);
      this.maxBytes = maxBytes;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (body == null) {
        body = new CappedStream(super.getInputStream(), maxBytes);
      }
      return body;
    }
  }

  private static final class CappedStream extends ServletInputStream {

    private final ServletInputStream in;
    private final long maxBytes;
    private long read;

    CappedStream(ServletInputStream in, long maxBytes) {
      this.in = in;
      this.maxBytes = maxBytes;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = in.read(buffer, offset, length);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(int n) throws TooLarge {
      read += n;
      if (read > maxBytes) {
        throw new TooLarge(maxBytes);
      }
    }

    @Override
    public boolean isFinished() {
      return in.isFinished();
    }

    @Override
    public boolean isReady() {
      return in.isReady();
    }

    @Override
    public void setReadListener(ReadListener listener) {
      in.setReadListener(listener);
    }
  }
}
