package io.stockade.system;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One service as a child JVM: {@code java -jar <module>.jar} on a free port, its output in a log
 * file of its own. Ready once {@code /actuator/health/readiness} answers 200.
 */
final class ServiceProcess {

  private static final Logger log = LoggerFactory.getLogger(ServiceProcess.class);

  private static final int START_ATTEMPTS = 3;
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  private final String name;
  private final Path jar;
  private final List<String> jvmOptions;
  private final List<String> arguments;
  private final Path logFile;
  private volatile Process process;
  private volatile int port;

  /**
   * @param name a name for the logs, also the log file's
   * @param jar the executable jar
   * @param jvmOptions options before {@code -jar} ({@code -Xmx...}, {@code -Dname=value})
   * @param arguments the application's arguments ({@code --name=value}), the port excepted
   * @param logDir where the log file goes
   */
  ServiceProcess(
      String name, Path jar, List<String> jvmOptions, List<String> arguments, Path logDir) {
    this.name = name;
    this.jar = jar;
    this.jvmOptions = List.copyOf(jvmOptions);
    this.arguments = List.copyOf(arguments);
    this.logFile = logDir.resolve(name + ".log");
  }

  String name() {
    return name;
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  Path logFile() {
    return logFile;
  }

  boolean isAlive() {
    Process current = process;
    return current != null && current.isAlive();
  }

  /** Launches the JVM on a free port; {@link #awaitReady} waits for it. */
  void launch() {
    launch(freePort());
  }

  /**
   * Launches the JVM again on the port it had, where its clients look for it; {@link #awaitReady}
   * waits for it (and moves it to another port only if that one was taken meanwhile).
   */
  void relaunch() {
    launch(port);
  }

  private void launch(int port) {
    this.port = port;
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    // The build switches the warm-up before readiness off for the tests (30 s a start otherwise).
    String warmUp = System.getProperty("stockade.warm-up.enabled");
    if (warmUp != null) {
      command.add("-Dstockade.warm-up.enabled=" + warmUp);
    }
    command.add("-jar");
    command.add(jar.toString());
    command.add("--server.port=" + port);
    command.addAll(arguments);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(logFile.getParent().toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    builder.environment().put("AXONIQ_UPDATE_CHECKER_DISABLED", "true");
    try {
      Files.createDirectories(logFile.getParent());
      Files.writeString(
          logFile,
          "----- " + String.join(" ", command) + System.lineSeparator(),
          StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start " + name, e);
    }
    log.info("Started {} as pid {} on port {}; its log: {}", name, process.pid(), port, logFile);
  }

  /**
   * Waits until the service is ready, launching it again on another port when the one chosen was
   * taken in the meantime.
   */
  void awaitReady(Duration timeout) {
    for (int attempt = 1; ; attempt++) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          break;
        }
        if (readiness() == 200) {
          log.info("{} (pid {}, port {}) is ready", name, process.pid(), port);
          return;
        }
        sleep(500);
      }
      if (process.isAlive()) {
        kill();
        throw new IllegalStateException(
            name + " was not ready within " + timeout + "; its log: " + logFile);
      }
      boolean portTaken = tail(200).contains("already in use");
      if (!portTaken || attempt == START_ATTEMPTS) {
        throw new IllegalStateException(
            name + " exited with " + process.exitValue() + "; its log: " + logFile);
      }
      log.warn("{}: port {} was taken, starting it on another one", name, port);
      launch();
    }
  }

  /** The status of {@code /actuator/health/readiness}, or -1 when there was no answer. */
  int readiness() {
    return status("/actuator/health/readiness");
  }

  private int status(String path) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(5))
            .GET()
            .build();
    try {
      return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** SIGKILL, and waits until the process is gone. */
  void kill() {
    Process current = process;
    if (current == null) {
      return;
    }
    current.descendants().forEach(ProcessHandle::destroyForcibly);
    current.destroyForcibly();
    try {
      if (!current.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("{} (pid {}) still runs {} after SIGKILL", name, current.pid(), STOP_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * How the process ended: 128 plus the signal's number for one ended by a signal (137 after
   * SIGKILL), as a shell reports it.
   */
  int exitValue() {
    return process.exitValue();
  }

  /** SIGKILL without waiting: for a shutdown hook. */
  void killNow() {
    Process current = process;
    if (current != null) {
      current.destroyForcibly();
    }
  }

  /** Freezes the process (SIGSTOP): it holds its sockets and claims but does nothing. */
  void suspend() {
    signal("STOP");
  }

  /** Lets a frozen process go on (SIGCONT). */
  void resume() {
    signal("CONT");
  }

  private void signal(String signal) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid()))
              .redirectErrorStream(true)
              .start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException(
            "kill -"
                + signal
                + " "
                + process.pid()
                + " failed: "
                + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The last lines of the log. */
  String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(logFile, StandardCharsets.UTF_8);
      return String.join(
          System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | RuntimeException e) {
      return "(cannot read " + logFile + ": " + e + ")";
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String toString() {
    return name + " (pid " + (process == null ? "-" : process.pid()) + ", port " + port + ")";
  }
}
