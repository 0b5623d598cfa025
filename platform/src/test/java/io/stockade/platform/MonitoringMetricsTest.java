package io.stockade.platform;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The alert rules and the Grafana dashboard of {@code deploy/monitoring} name only metrics the code
 * registers: every {@code Counter}, {@code Gauge}, {@code Timer} ... {@code .builder("name")} of
 * the modules' main sources, in the form Prometheus shows it (dots to underscores, the base unit
 * appended, {@code _total} for counters, {@code _seconds_count}, {@code _sum}, {@code _max} and
 * {@code _bucket} for timers). A static check: some metrics appear at {@code /actuator/prometheus}
 * only once used or configured (Kafka's only with {@code stockade.kafka.bootstrap-servers}).
 */
class MonitoringMetricsTest {

  private static final Path ROOT = Path.of("..");
  private static final Path MONITORING = ROOT.resolve("deploy/monitoring");
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

  @Test
  void theRulesAndTheDashboardNameOnlyMetricsTheCodeRegisters() {
    Map<String, String> registered = registered();
    assertThat(registered)
        .as("Prometheus names of the metrics the code registers")
        .containsKeys(
            "stockade_admissions_total",
            "stockade_gate_latency_seconds_bucket",
            "stockade_processor_lag_events",
            "stockade_kafka_lag");

    Map<String, String> used = new TreeMap<>();
    expressions().forEach((expr, where) -> metricsIn(expr).forEach(name -> used.put(name, where)));
    assertThat(used)
        .as("metrics the rules and the dashboard use")
        .containsKeys("stockade_reconciliation_skus", "stockade_decisions_backlog");

    List<String> unknown = new ArrayList<>();
    used.forEach(
        (name, where) -> {
          if (!registered.containsKey(name)) {
            unknown.add(name + " (" + where + ")");
          }
        });
    assertThat(unknown).as("metrics no code registers").isEmpty();
  }

  @Test
  void aMetricNameIsToldFromFunctionsLabelsAndKeywords() {
    assertThat(
            metricsIn(
                "max by (processor) (rate(a_total{x=\"b_c\"}[5m])) > 3 * 600 and on (i)"
                    + " deriv(b_seconds[1m]) unless c"))
        .containsExactlyInAnyOrder("a_total", "b_seconds", "c");
  }

  /** Every metric the main sources register, by Prometheus name, to the file that does. */
  static Map<String, String> registered() {
    Map<String, String> names = new TreeMap<>();
    try (Stream<Path> all = Files.walk(ROOT)) {
      for (Path file :
          all.filter(file -> file.toString().endsWith(".java"))
              .filter(file -> ROOT.relativize(file).toString().contains("src/main/java/"))
              .filter(file -> !ROOT.relativize(file).startsWith("bench"))
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
            names.put(name, String.valueOf(ROOT.relativize(file)));
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

  /** Every PromQL expression of the rules files and the dashboards, to its file. */
  private static Map<String, String> expressions() {
    Map<String, String> expressions = new TreeMap<>();
    try (Stream<Path> all = Files.list(MONITORING)) {
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
    assertThat(expressions.values())
        .as("expressions of the rules and the dashboard")
        .contains("stockade.rules.yml", "stockade-dashboard.json");
    return expressions;
  }

  static Set<String> metricsIn(String expression) {
    String names = NOT_A_NAME.matcher(expression).replaceAll(" ");
    Set<String> metrics = new TreeSet<>();
    Matcher identifier = IDENTIFIER.matcher(names);
    while (identifier.find()) {
      String name = identifier.group(1);
      boolean function = identifier.group(2) != null;
      if (!function && !KEYWORDS.contains(name.toLowerCase(java.util.Locale.ROOT))) {
        metrics.add(name);
      }
    }
    return metrics;
  }
}
