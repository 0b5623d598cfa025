package io.stockade.bench.engines;

import java.util.List;
import java.util.Optional;

/** The text report: one row per engine (its median round), the target ratio and the verdict. */
final class Report {

  static final String GATE = "gate";
  static final String CONDITIONAL_UPDATE = "conditional-update";

  /** The project's target: the gate admits at least this many times the conditional UPDATE. */
  static final double TARGET_RATIO = 5;

  private Report() {}

  static String table(List<EngineResult> results) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            "%-19s %12s %9s %9s %9s %9s %7s  %s%n",
            "engine", "attempts/s", "p50 us", "p99 us", "admitted", "oversold", "errors", "what"));
    for (EngineResult result : results) {
      RoundResult median = result.median();
      out.append(
          String.format(
              "%-19s %,12.0f %,9.0f %,9.0f %9d %9d %7d  %s%n",
              result.name(),
              median.throughput(),
              median.p50Micros(),
              median.p99Micros(),
              median.taken(),
              median.oversold(),
              median.errors(),
              result.description()));
    }
    ratio(results)
        .ifPresent(
            ratio ->
                out.append(
                    String.format(
                        "ratio gate / conditional-update: %.2f (target >= %.0f: %s)%n",
                        ratio, TARGET_RATIO, ratio >= TARGET_RATIO ? "met" : "NOT met")));
    return out.toString();
  }

  /** Throughput of the gate over the conditional UPDATE's, when both ran. */
  static Optional<Double> ratio(List<EngineResult> results) {
    Optional<Double> gate = throughput(results, GATE);
    Optional<Double> update = throughput(results, CONDITIONAL_UPDATE);
    return gate.flatMap(g -> update.map(u -> g / u));
  }

  private static Optional<Double> throughput(List<EngineResult> results, String name) {
    return results.stream()
        .filter(result -> result.name().equals(name))
        .findFirst()
        .map(result -> result.median().throughput());
  }
}
