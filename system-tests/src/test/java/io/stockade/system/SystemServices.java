package io.stockade.system;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.TestTokens;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The services a system test launches as child JVMs from their packaged jars, all with the same JVM
 * options, their logs in {@code target/system-test/logs-<run>/}. Killed by {@link #close}, or by a
 * shutdown hook when the test's JVM stops first.
 */
final class SystemServices implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SystemServices.class);

  /** The system tests' folder: their services' logs, Redis's files, the services' tmp. */
  static final Path WORK = ServiceJar.baseDir().resolve("target").resolve("system-test");

  private final Path logs;
  private final List<String> jvmOptions;
  private final List<ServiceProcess> services = new CopyOnWriteArrayList<>();
  private final Thread killOnExit;

  /**
   * @param run this run's name, which the processes carry so that they can be told apart
   */
  SystemServices(String run) {
    try {
      this.logs = Files.createDirectories(WORK.resolve("logs-" + run));
      this.jvmOptions = jvmOptions(run);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    killOnExit = new Thread(this::killNow, "system-test-killer");
    Runtime.getRuntime().addShutdownHook(killOnExit);
    log.info("The services' logs are in {}", logs);
  }

  /**
   * A service of {@code module}'s executable jar, not launched yet.
   *
   * @param arguments the application's arguments ({@code --name=value}), the port excepted
   */
  ServiceProcess service(String name, String module, List<String> arguments) {
    ServiceProcess service =
        new ServiceProcess(name, ServiceJar.of(module), jvmOptions, arguments, logs);
    services.add(service);
    return service;
  }

  List<ServiceProcess> all() {
    return List.copyOf(services);
  }

  /** The last lines of each service's log, for a test that failed. */
  void printLogs() {
    for (ServiceProcess service : services) {
      System.err.println("----- " + service + ": last lines of " + service.logFile() + " -----");
      System.err.println(service.tail(60));
    }
    System.err.println("----- the services' whole logs are in " + logs + " -----");
  }

  private static List<String> jvmOptions(String run) throws IOException {
    List<String> options = new ArrayList<>();
    options.add("-Xmx256m");
    options.add("-XX:TieredStopAtLevel=1");
    // No parallel GC threads competing with the other JVMs for the two cores.
    options.add("-XX:+UseSerialGC");
    options.add("-Daxoniq.update-checker.disabled=true");
    options.add("-Ddisable-axoniq-console-message=true");
    options.add("-Djava.io.tmpdir=" + Files.createDirectories(WORK.resolve("tmp")));
    // Names the processes as this run's, for whoever looks at the process list.
    options.add("-Dstockade.system-test.run=" + run);
    // The tests tell the services where Redis and the database are: never start or attach to
    // local servers.
    options.add("-Dstockade.local-infra.enabled=false");
    // The test key, so that the ApiClient's tokens are accepted. The services' jars do not hold
    // the platform's test jar, where the key is a class-path resource: they get a copy as a file.
    Path key = WORK.resolve("test-jwt.pub");
    String resource = TestTokens.PUBLIC_KEY_LOCATION.substring("classpath:".length());
    try (InputStream in = TestTokens.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as("the test key %s", resource).isNotNull();
      Files.copy(in, key, StandardCopyOption.REPLACE_EXISTING);
    }
    for (String property : TestTokens.SERVICE_PROPERTIES) {
      options.add(property.replace(TestTokens.PUBLIC_KEY_LOCATION, "file:" + key));
    }
    return options;
  }

  private void killNow() {
    services.forEach(ServiceProcess::killNow);
  }

  @Override
  public void close() {
    for (ServiceProcess service : services) {
      service.kill();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(killOnExit);
    } catch (IllegalStateException shuttingDown) {
      // The hook runs anyway; there is nothing left for it to kill.
    }
  }
}
