package io.stockade.bench.engines;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The driver's arguments, {@code key=value} each: {@code db.host} (127.0.0.1), {@code db.port}
 * (3306), {@code db.user} (root), {@code db.password} (empty), {@code redis.host} (127.0.0.1),
 * {@code redis.port} (6379), {@code stock} (500), {@code threads} (64), {@code attempts} (50000),
 * {@code warmup} (1 round), {@code rounds} (3), {@code engines} (all, comma-separated names) and
 * {@code chart} (a PNG path; none by default).
 */
record Options(
    String dbHost,
    int dbPort,
    String dbUser,
    String dbPassword,
    String redisHost,
    int redisPort,
    Workload workload,
    List<String> engines,
    Path chart) {

  static final List<String> ENGINES =
      List.of("select-for-update", "conditional-update", "redisson-lock", "gate");

  static Options parse(String... args) {
    Map<String, String> values = new HashMap<>();
    for (String arg : args) {
      String[] pair = arg.split("=", 2);
      if (pair.length != 2) {
        throw new IllegalArgumentException("Expected key=value, got " + arg);
      }
      values.put(pair[0], pair[1]);
    }
    List<String> engines =
        Arrays.asList(values.getOrDefault("engines", String.join(",", ENGINES)).split(","));
    if (engines.isEmpty() || !ENGINES.containsAll(engines)) {
      throw new IllegalArgumentException("engines must name some of " + ENGINES + ": " + engines);
    }
    String chart = values.get("chart");
    return new Options(
        values.getOrDefault("db.host", "127.0.0.1"),
        Integer.parseInt(values.getOrDefault("db.port", "3306")),
        values.getOrDefault("db.user", "root"),
        values.getOrDefault("db.password", ""),
        values.getOrDefault("redis.host", "127.0.0.1"),
        Integer.parseInt(values.getOrDefault("redis.port", "6379")),
        new Workload(
            Long.parseLong(values.getOrDefault("stock", "500")),
            Integer.parseInt(values.getOrDefault("threads", "64")),
            Long.parseLong(values.getOrDefault("attempts", "50000")),
            Integer.parseInt(values.getOrDefault("warmup", "1")),
            Integer.parseInt(values.getOrDefault("rounds", "3"))),
        ENGINES.stream().filter(engines::contains).toList(),
        chart == null || chart.isBlank() ? null : Path.of(chart));
  }
}
