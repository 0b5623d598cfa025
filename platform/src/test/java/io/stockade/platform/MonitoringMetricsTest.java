package io.stockade.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.MonitoringMetrics;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The alert rules and the Grafana dashboard of {@code deploy/monitoring} name only metrics the code
 * registers, in their Prometheus form (see {@link MonitoringMetrics}). A static check: some metrics
 * appear at {@code /actuator/prometheus} only once configured (Kafka's only with {@code
 * stockade.kafka.bootstrap-servers}); each service's {@code AlertMetricsHttpIntegrationTest}
 * scrapes the others from a running service.
 */
class MonitoringMetricsTest {

  private static final Path ROOT = Path.of("..");

  @Test
  void theRulesAndTheDashboardNameOnlyMetricsTheCodeRegisters() {
    Map<String, String> registered = MonitoringMetrics.registered(ROOT);
    assertThat(registered)
        .as("Prometheus names of the metrics the code registers")
        .containsKeys(
            "stockade_admissions_total",
            "stockade_gate_latency_seconds_bucket",
            "stockade_processor_lag_events",
            "stockade_kafka_lag");
    assertThat(MonitoringMetrics.expressions(ROOT.resolve("deploy/monitoring")).values())
        .as("where the expressions are")
        .contains("stockade.rules.yml", "stockade-dashboard.json");

    Map<String, String> used = MonitoringMetrics.used(ROOT);
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
            MonitoringMetrics.metricsIn(
                "max by (processor) (rate(a_total{x=\"b_c\"}[5m])) > 3 * 600 and on (i)"
                    + " deriv(b_seconds[1m]) unless c"))
        .containsExactlyInAnyOrder("a_total", "b_seconds", "c");
  }
}
