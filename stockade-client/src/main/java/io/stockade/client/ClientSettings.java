package io.stockade.client;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What both clients share: the bearer token (asked for at every send, so that a caller can renew
 * it), the retries, the timeout of each send and the JDK {@link HttpClient}. Immutable; each {@code
 * with...} returns a copy.
 */
public final class ClientSettings {

  /** Waits before a retry; {@link Thread#sleep} but in the tests of the retries. */
  @FunctionalInterface
  interface Pause {
    void pause(Duration wait) throws InterruptedException;
  }

  private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  private final Supplier<String> token;
  private final RetryPolicy retries;
  private final Duration requestTimeout;
  private final HttpClient http;
  private final RetryListener listener;
  private final Pause pause;

  private ClientSettings(
      Supplier<String> token,
      RetryPolicy retries,
      Duration requestTimeout,
      HttpClient http,
      RetryListener listener,
      Pause pause) {
    this.token = Objects.requireNonNull(token, "token");
    this.retries = Objects.requireNonNull(retries, "retries");
    this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
    this.http = Objects.requireNonNull(http, "http");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.pause = Objects.requireNonNull(pause, "pause");
  }

  /**
   * Settings that send {@code token} as {@code Authorization: Bearer <token>}, asked for at each
   * send; {@link RetryPolicy#DEFAULT}, 10 s per send.
   */
  public static ClientSettings bearer(Supplier<String> token) {
    return new ClientSettings(
        token,
        RetryPolicy.DEFAULT,
        DEFAULT_TIMEOUT,
        HttpClient.newBuilder().connectTimeout(DEFAULT_TIMEOUT).build(),
        RetryListener.NONE,
        wait -> Thread.sleep(wait.toMillis()));
  }

  /** The same with a token that does not change. */
  public static ClientSettings bearer(String token) {
    Objects.requireNonNull(token, "token");
    return bearer(() -> token);
  }

  public ClientSettings withRetries(RetryPolicy retries) {
    return new ClientSettings(token, retries, requestTimeout, http, listener, pause);
  }

  /** The longest one send may take, until the whole answer's headers are in. */
  public ClientSettings withRequestTimeout(Duration requestTimeout) {
    return new ClientSettings(token, retries, requestTimeout, http, listener, pause);
  }

  public ClientSettings withHttpClient(HttpClient http) {
    return new ClientSettings(token, retries, requestTimeout, http, listener, pause);
  }

  public ClientSettings withRetryListener(RetryListener listener) {
    return new ClientSettings(token, retries, requestTimeout, http, listener, pause);
  }

  ClientSettings withPause(Pause pause) {
    return new ClientSettings(token, retries, requestTimeout, http, listener, pause);
  }

  String token() {
    return token.get();
  }

  RetryPolicy retries() {
    return retries;
  }

  Duration requestTimeout() {
    return requestTimeout;
  }

  HttpClient http() {
    return http;
  }

  RetryListener listener() {
    return listener;
  }

  Pause pause() {
    return pause;
  }
}
