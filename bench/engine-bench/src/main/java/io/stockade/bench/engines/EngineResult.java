package io.stockade.bench.engines;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The measured rounds of one engine, and the failures of any of its rounds, warm-up included. */
record EngineResult(
    String name, String description, List<RoundResult> rounds, List<String> failures) {

  EngineResult {
    rounds = List.copyOf(rounds);
    failures = List.copyOf(failures);
  }

  /** The round of median throughput (the lower of the middle two when their number is even). */
  RoundResult median() {
    List<RoundResult> sorted = new ArrayList<>(rounds);
    sorted.sort(Comparator.comparingDouble(RoundResult::throughput));
    return sorted.get((sorted.size() - 1) / 2);
  }

  /** The line {@code bench/engines} and other scripts read. */
  String resultLine() {
    RoundResult median = median();
    return String.format(
        "RESULT %s %.0f %.0f %.0f %d %d",
        name,
        median.throughput(),
        median.p50Micros(),
        median.p99Micros(),
        median.taken(),
        median.oversold());
  }
}
