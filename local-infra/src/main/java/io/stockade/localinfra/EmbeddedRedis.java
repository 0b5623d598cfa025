package io.stockade.localinfra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import redis.embedded.RedisServer;

/**
 * A real redis-server (the binary bundled by embedded-redis) on a loopback port, with an
 * append-only file in its folder. It can be stopped and started again on the same port, which tests
 * of restarts and outages need.
 */
public final class EmbeddedRedis implements AutoCloseable {

  private final int port;
  private final RedisServer server;

  private EmbeddedRedis(int port, RedisServer server) {
    this.port = port;
    this.server = server;
  }

  /** Starts a server on a free port keeping its data in {@code dir}. */
  public static EmbeddedRedis start(Path dir) {
    try {
      int port = freePort();
      Path data = Files.createDirectories(dir);
      RedisServer server =
          RedisServer.newRedisServer()
              .bind("127.0.0.1")
              .port(port)
              .setting("dir " + data.toAbsolutePath())
              .setting("appendonly yes")
              .setting("appendfsync everysec")
              .build();
      EmbeddedRedis redis = new EmbeddedRedis(port, server);
      redis.start();
      return redis;
    } catch (IOException e) {
      throw new UncheckedIOException("Embedded Redis did not start", e);
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  public int port() {
    return port;
  }

  public boolean running() {
    return server.isActive();
  }

  /** Starts the server again after {@link #stop()}, on the same port. */
  public void start() {
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("Embedded Redis did not start on port " + port, e);
    }
  }

  public void stop() {
    try {
      if (server.isActive()) {
        server.stop();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Embedded Redis did not stop", e);
    }
  }

  @Override
  public void close() {
    stop();
  }
}
