package io.stockade.platform.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.yaml.snakeyaml.Yaml;

/**
 * The metrics {@code deploy/monitoring} names (its alert rules and Grafana dashboards), and those
 * the code registers: every {@code Counter}, {@code Gauge}, {@code Timer} ... {@code
 * .builder("name")} of the modules' main sources, in the form Prometheus shows it (dots to
 * underscores, the base unit appended, {@code _total} for counters, {@code _seconds_count}, {@code
 * _sum}, {@code _max} and {@code _bucket} for timers).
 */
public final class MonitoringMetrics {

  private static final Pattern BUILDER =
      Pattern.compile(
          "\\b(Counter|FunctionCounter|Gauge|MultiGauge|Timer|DistributionSummary|LongTaskTimer)"
              + "\\.builder\\(\\s*\"([a-z0-9._-]+)\"");
  private static final Pattern BASE_UNIT = Pattern.compile("\\.baseUnit\\(\\s*\"([a-z]+)\"");

  /** What a metric name is not: label matchers, ranges, strings, grouping lists. */
  private static final Pattern NOT_A_NAME =
      Pattern.compile(
          "\"(?:[^\"\\\\]|\\\\.)*\"|\\{[^}]*}|\\[[^]]*]"
              + "|\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");

  private static final Pattern IDENTIFIER =
      Pattern.compile("(?<![\\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(?!\\w)(\\s*\\()?");
  private static final Set<String> KEYWORDS =
      Set.of("and", "or", "unless", "bool", "offset", "inf", "nan", "by", "without");

  private MonitoringMetrics() {}

  /**
   * Every metric the main sources under {@code root} register (benchmarks aside), by Prometheus
   * name, to the file that registers it, relative to {@code root}.
   */
  public static Map<String, String> registered(Path root) {
    Map<String, String> names = new TreeMap<>();
    try (Stream<Path> all = Files.walk(root)) {
      for (Path file :
          all.filter(file -> file.toString().endsWith(".java"))
              .filter(file -> root.relativize(file).toString().contains("src/main/java/"))
              .filter(file -> !root.relativize(file).startsWith("bench"))
              .sorted()
              .toList()) {
        String source = Files.readString(file);
        Matcher builder = BUILDER.matcher(source);
        while (builder.find()) {
          int end = source.indexOf(".register(", builder.end());
          Matcher unit = BASE_UNIT.matcher(source.substring(builder.end(), end));
          String base = builder.group(2).replaceAll("[^a-zA-Z0-9]", "_");
          if (unit.find() && !base.endsWith("_" + unit.group(1))) {
            base = base + "_" + unit.group(1);
          }
          for (String name : prometheus(builder.group(1), base)) {
            names.put(name, String.valueOf(root.relativize(file)));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return names;
  }

  private static List<String> prometheus(String type, String base) {
    return switch (type) {
      case "Counter", "FunctionCounter" -> List.of(base + "_total");
      case "Timer", "LongTaskTimer" ->
          Stream.of("", "_count", "_sum", "_max", "_bucket")
              .map(suffix -> base + "_seconds" + suffix)
              .toList();
      case "DistributionSummary" ->
          Stream.of("_count", "_sum", "_max", "_bucket").map(suffix -> base + suffix).toList();
      default -> List.of(base);
    };
  }

  /** Every metric the rules and dashboards of {@code root/deploy/monitoring} name, to its file. */
  public static Map<String, String> used(Path root) {
    Map<String, String> used = new TreeMap<>();
    expressions(root.resolve("deploy/monitoring"))
        .forEach((expr, where) -> metricsIn(expr).forEach(name -> used.put(name, where)));
    return used;
  }

  /**
   * The metrics the rules and dashboards name that {@code module}'s code or the platform's
   * registers: what that service's {@code /actuator/prometheus} should show.
   */
  public static Set<String> usedBy(Path root, String module) {
    Map<String, String> registered = registered(root);
    Set<String> names = new TreeSet<>();
    used(root)
        .keySet()
        .forEach(
            name -> {
              String where = registered.getOrDefault(name, "");
              if (where.startsWith(module + "/") || where.startsWith("platform/")) {
                names.add(name);
              }
            });
    return names;
  }

  /** Every PromQL expression of the rules files and the dashboards, to its file's name. */
  public static Map<String, String> expressions(Path folder) {
    Map<String, String> expressions = new TreeMap<>();
    try (Stream<Path> all = Files.list(folder)) {
      for (Path file : all.sorted().toList()) {
        String name = file.getFileName().toString();
        if (name.endsWith(".rules.yml")) {
          Map<String, Object> rules = new Yaml().load(Files.readString(file));
          for (Object group : (List<?>) rules.get("groups")) {
            for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
              expressions.put(String.valueOf(((Map<?, ?>) rule).get("expr")), name);
            }
          }
        } else if (name.endsWith(".json")) {
          new ObjectMapper()
              .readTree(file.toFile())
              .findValues("expr")
              .forEach(expr -> expressions.put(expr.asText(), name));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return expressions;
  }

  /** The metric names of a PromQL expression: not functions, labels, ranges or keywords. */
  public static Set<String> metricsIn(String expression) {
    String names = NOT_A_NAME.matcher(expression).replaceAll(" ");
    Set<String> metrics = new TreeSet<>();
    Matcher identifier = IDENTIFIER.matcher(names);
    while (identifier.find()) {
      String name = identifier.group(1);
      boolean function = identifier.group(2) != null;
      if (!function && !KEYWORDS.contains(name.toLowerCase(Locale.ROOT))) {
        metrics.add(name);
      }
    }
    return metrics;
  }
}
