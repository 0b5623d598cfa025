package io.stockade.platform.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * A real Redis that listens only on a TLS port of loopback: the {@code redis-server} on the {@code
 * PATH}, with a certificate for 127.0.0.1 that {@code openssl} makes for it. A test that starts one
 * is skipped (an assumption fails) where that {@code redis-server} was built without TLS or there
 * is no {@code openssl}.
 */
public final class TlsRedis implements AutoCloseable {

  /** The SSL bundle {@link #register} names for the services' Redis. */
  public static final String BUNDLE = "test-redis-tls";

  private final Process process;
  private final int port;
  private final Path certificate;

  private TlsRedis(Process process, int port, Path certificate) {
    this.process = process;
    this.port = port;
    this.certificate = certificate;
  }

  /**
   * Starts one, its files in a new folder under the temporary folder; stopped when the JVM ends.
   */
  public static TlsRedis start() throws IOException, InterruptedException {
    Path binary = onPath("redis-server");
    assumeTrue(binary != null, "no redis-server on the PATH");
    assumeTrue(onPath("openssl") != null, "no openssl on the PATH");
    Path dir =
        Files.createDirectories(
            Path.of(System.getProperty("java.io.tmpdir"), "tls-redis-" + UUID.randomUUID()));
    Path key = dir.resolve("redis.key");
    Path certificate = dir.resolve("redis.crt");
    Process openssl =
        new ProcessBuilder(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=127.0.0.1",
                "-addext",
                "subjectAltName=IP:127.0.0.1",
                "-keyout",
                key.toString(),
                "-out",
                certificate.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("openssl.log").toFile())
            .start();
    assertThat(openssl.waitFor(60, TimeUnit.SECONDS) && openssl.exitValue() == 0)
        .as("openssl made the certificate (see %s)", dir.resolve("openssl.log"))
        .isTrue();

    int port = freePort();
    Path log = dir.resolve("redis.log");
    Process process =
        new ProcessBuilder(
                binary.toString(),
                "--port",
                "0",
                "--tls-port",
                String.valueOf(port),
                "--bind",
                "127.0.0.1",
                "--tls-cert-file",
                certificate.toString(),
                "--tls-key-file",
                key.toString(),
                "--tls-ca-cert-file",
                certificate.toString(),
                "--tls-auth-clients",
                "no",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!listening(port) && process.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    boolean up = process.isAlive() && listening(port);
    if (!up) {
      process.destroyForcibly();
    }
    assumeTrue(up, "redis-server did not listen on a TLS port (built without TLS?): " + read(log));
    return new TlsRedis(process, port, certificate);
  }

  public int port() {
    return port;
  }

  /**
   * Points a service at it: host and port, and TLS through the bundle {@link #BUNDLE}, which trusts
   * its certificate.
   */
  public void register(DynamicPropertyRegistry properties) {
    properties.add("spring.data.redis.host", () -> "127.0.0.1");
    properties.add("spring.data.redis.port", () -> port);
    properties.add("spring.data.redis.ssl.bundle", () -> BUNDLE);
    properties.add(
        "spring.ssl.bundle.pem." + BUNDLE + ".truststore.certificate", () -> "file:" + certificate);
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }

  private static Path onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String folder : path.split(File.pathSeparator)) {
      Path candidate = Path.of(folder.isEmpty() ? "." : folder, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate.toAbsolutePath();
      }
    }
    return null;
  }

  private static boolean listening(int port) {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static String read(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
