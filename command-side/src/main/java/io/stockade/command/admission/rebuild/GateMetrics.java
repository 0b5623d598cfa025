package io.stockade.command.admission.rebuild;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

/**
 * The gate's state as metrics, for alerts: {@code stockade.gate.open} (1 while this instance holds
 * an open gate as last found by a request or a readiness check; a scrape does not call Redis, so
 * that it answers at once when Redis does not) and {@code stockade.gate.rebuilds.failed} (rebuilds
 * that failed in a row on this instance, 0 once one succeeds).
 */
@Component
class GateMetrics {

  GateMetrics(GateKeeper keeper, MeterRegistry meters) {
    Gauge.builder("stockade.gate.open", keeper, k -> k.holdsOpenSession() ? 1 : 0)
        .description("1 while the gate of this instance is open, 0 while it is closed or rebuilt")
        .register(meters);
    Gauge.builder("stockade.gate.rebuilds.failed", keeper, GateKeeper::failedRebuilds)
        .description("rebuilds of the gate that failed in a row on this instance")
        .register(meters);
  }
}
