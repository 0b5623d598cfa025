package io.stockade.localinfra;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the local Redis and MariaDB in a process of their own until it is stopped, so that both
 * services can be started and stopped independently against them. Used by {@code ./stockade up}.
 *
 * <p>Argument: the data folder (default {@code .stockade}). Prints one line {@code READY redis=PORT
 * database=PORT} once both servers answer.
 */
public final class LocalInfraMain {

  private LocalInfraMain() {}

  public static void main(String[] args) throws InterruptedException {
    // Before the first logger exists: keep the servers' own chatter out of the launcher's log.
    System.setProperty("logback.configurationFile", "stockade-local-infra-logback.xml");
    Path dataDir = Path.of(args.length > 0 ? args[0] : ".stockade");
    LocalInfrastructure infrastructure = LocalInfrastructure.attachOrStart(dataDir);
    Endpoints endpoints = infrastructure.endpoints();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  infrastructure.close();
                  stopped.countDown();
                }));
    System.out.printf(
        "READY redis=%d database=%d%n", endpoints.redisPort(), endpoints.databasePort());
    System.out.flush();
    if (infrastructure.owned()) {
      stopped.await();
    }
  }
}
