package io.stockade.localinfra;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the local Redis and MariaDB in a process of their own until it is stopped, so that both
 * services can be started and stopped independently against them. Used by {@code ./stockade up}.
 *
 * <p>Argument: the data folder (default {@code .stockade}). With the environment variable {@code
 * STOCKADE_KAFKA=1} it also runs a Kafka broker ({@link EmbeddedKafka}, data in {@code kafka/} of
 * the folder) and records its address as {@code kafka.bootstrap-servers} in the folder's {@code
 * endpoints.properties}, where the query side finds it. Prints one line {@code READY redis=PORT
 * database=PORT} (and {@code kafka=PORT}) once the servers answer.
 */
public final class LocalInfraMain {

  private LocalInfraMain() {}

  public static void main(String[] args) throws InterruptedException {
    // Before the first logger exists: keep the servers' own chatter out of the launcher's log.
    System.setProperty("logback.configurationFile", "stockade-local-infra-logback.xml");
    Path dataDir = Path.of(args.length > 0 ? args[0] : ".stockade");
    LocalInfrastructure infrastructure = LocalInfrastructure.attachOrStart(dataDir);
    Endpoints endpoints = infrastructure.endpoints();
    EmbeddedKafka kafka =
        infrastructure.owned() && "1".equals(System.getenv("STOCKADE_KAFKA"))
            ? EmbeddedKafka.start(dataDir.resolve("kafka"))
            : null;
    if (kafka != null) {
      LocalInfrastructure.recordKafka(dataDir, kafka.bootstrapServers());
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (kafka != null) {
                    kafka.close();
                  }
                  infrastructure.close();
                  stopped.countDown();
                }));
    System.out.printf(
        "READY redis=%d database=%d%s%n",
        endpoints.redisPort(),
        endpoints.databasePort(),
        kafka == null ? "" : " kafka=" + kafka.port());
    System.out.flush();
    if (infrastructure.owned()) {
      stopped.await();
    }
  }
}
