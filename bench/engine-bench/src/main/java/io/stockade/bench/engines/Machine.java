package io.stockade.bench.engines;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.lang.management.ManagementFactory;
import org.redisson.Redisson;

/** What the figures were measured on: the machine, the JDK, Redis and the client libraries. */
final class Machine {

  private Machine() {}

  static String describe() {
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    return String.format(
        "%d cores, %.1f GiB memory, %s %s, %s %s %s",
        os.getAvailableProcessors(),
        os.getTotalMemorySize() / (double) (1L << 30),
        System.getProperty("java.vm.name"),
        Runtime.version(),
        os.getName(),
        os.getVersion(),
        os.getArch());
  }

  /** The system's load average over the last minute: others' work on the machine shows here. */
  static double load() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  /** Redis's version as {@code INFO server} gives it, and the Redis clients' versions. */
  static String redis(String host, int port) {
    RedisClient client = RedisClient.create(RedisURI.create(host, port));
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      String version =
          connection
              .sync()
              .info("server")
              .lines()
              .filter(line -> line.startsWith("redis_version:"))
              .map(line -> line.substring("redis_version:".length()).strip())
              .findFirst()
              .orElse("unknown");
      return String.format(
          "Redis %s at %s:%d (Lettuce %s, Redisson %s)",
          version, host, port, version(RedisClient.class), version(Redisson.class));
    } finally {
      client.shutdown();
    }
  }

  private static String version(Class<?> type) {
    String version = type.getPackage().getImplementationVersion();
    return version == null ? "unknown" : version;
  }
}
