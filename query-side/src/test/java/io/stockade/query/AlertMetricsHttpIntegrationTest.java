package io.stockade.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.Metrics;
import io.stockade.platform.testing.MonitoringMetrics;
import io.stockade.platform.testing.TestTokens;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Every metric of the query side that the alert rules and the dashboard of {@code
 * deploy/monitoring} name is in its {@code /actuator/prometheus}, before any request; but Kafka's,
 * registered only with {@code stockade.kafka.bootstrap-servers} set (no broker here: they are
 * checked against the code only, by the platform's {@code MonitoringMetricsTest}). Its own
 * database.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.local-infra.database=stockade_test_alert_metrics_query",
      "stockade.warm-up.enabled=false"
    })
class AlertMetricsHttpIntegrationTest {

  @LocalServerPort private int port;

  @Test
  void everyMetricTheAlertsAndTheDashboardNameForTheQuerySideIsScraped() {
    Set<String> expected =
        MonitoringMetrics.usedBy(Path.of(".."), "query-side").stream()
            .filter(name -> !name.startsWith("stockade_kafka_"))
            .collect(Collectors.toSet());
    assertThat(expected)
        .as("the query side's metrics in deploy/monitoring")
        .contains("stockade_reconciliation_skus", "stockade_processor_lag_events");

    Metrics scrape = Metrics.scrape(new ApiClient(port).withToken(TestTokens.withRoles("metrics")));

    List<String> missing =
        expected.stream()
            .filter(
                name ->
                    scrape
                        .text()
                        .lines()
                        .noneMatch(
                            line -> line.startsWith(name + "{") || line.startsWith(name + " ")))
            .toList();
    assertThat(missing).as("metrics of deploy/monitoring missing from the scrape").isEmpty();
  }
}
