package io.stockade.bench.http;

import java.time.Duration;
import java.util.Map;
import java.util.StringJoiner;

/**
 * What every workload shares: the service, the number of virtual users and the phases. Read from
 * the environment, which bench/http sets (the Gatling plugin runs the simulations in a JVM of its
 * own, which inherits the environment but not Maven's system properties).
 */
record BenchParameters(
    String baseUrl,
    String adminToken,
    String clientToken,
    int users,
    Duration warmUp,
    Duration duration,
    String runId) {

  static BenchParameters fromEnvironment() {
    return new BenchParameters(
        text("BASE_URL", "http://127.0.0.1:8080"),
        // Bearer tokens: admin registers the SKUs, client reserves (bench/http passes the local
        // development ones, which its service accepts).
        required("ADMIN_TOKEN"),
        required("CLIENT_TOKEN"),
        number("USERS", 32),
        Duration.ofSeconds(number("WARMUP", 10)),
        Duration.ofSeconds(number("DURATION", 30)),
        // Identifiers of a run begin with it, so that runs against the same database never meet.
        text("RUN_ID", Long.toString(System.currentTimeMillis(), 36)));
  }

  static String text(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }

  static String required(String name) {
    String value = text(name, null);
    if (value == null) {
      throw new IllegalStateException(name + " is not set: bench/http sets it");
    }
    return value;
  }

  /** The {@code Authorization} header's value for a token. */
  static String bearer(String token) {
    return "Bearer " + token;
  }

  static int number(String name, int fallback) {
    return Integer.parseInt(text(name, Integer.toString(fallback)));
  }

  /** Prints the parameters, with those of the workload, before it starts. */
  void print(String workload, Map<String, Object> own) {
    StringJoiner line = new StringJoiner(" ", "PARAMETERS " + workload + " ", "");
    line.add("baseUrl=" + baseUrl)
        .add("users=" + users)
        .add("model=closed")
        .add("warmUpSeconds=" + warmUp.toSeconds())
        .add("durationSeconds=" + duration.toSeconds())
        .add("runId=" + runId);
    own.forEach((name, value) -> line.add(name + "=" + value));
    System.out.println(line);
  }
}
