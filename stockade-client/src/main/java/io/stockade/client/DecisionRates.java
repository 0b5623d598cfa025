package io.stockade.client;

import java.time.Instant;
import java.util.List;

/** {@code GET /api/decisions/rate}: admissions and refusals per second, oldest first. */
public record DecisionRates(Instant from, Instant to, List<Second> seconds) {

  /** One whole second. */
  public record Second(Instant at, long admitted, long refused) {}
}
