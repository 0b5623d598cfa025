package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.Metrics;
import io.stockade.platform.testing.MonitoringMetrics;
import io.stockade.platform.testing.TestTokens;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Every metric of the command side that the alert rules and the dashboard of {@code
 * deploy/monitoring} name is in its {@code /actuator/prometheus}, before any request: with the
 * decision drain and the rate limits on, as in production (the suite switches them off). Its own
 * database and Redis, since the drain moves every decision it finds.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.local-infra.database=stockade_test_alert_metrics",
      "stockade.decisions.enabled=true",
      "stockade.rate-limit.enabled=true",
      "stockade.warm-up.enabled=false"
    })
@DirtiesContext
class AlertMetricsHttpIntegrationTest {

  private static final EmbeddedRedis REDIS = RecordedEvents.ownRedis("alert-metrics-redis");

  @DynamicPropertySource
  static void ownRedis(DynamicPropertyRegistry properties) {
    RecordedEvents.useRedis(properties, REDIS);
  }

  @LocalServerPort private int port;

  @Test
  void everyMetricTheAlertsAndTheDashboardNameForTheCommandSideIsScraped() {
    Set<String> expected = MonitoringMetrics.usedBy(Path.of(".."), "command-side");
    assertThat(expected)
        .as("the command side's metrics in deploy/monitoring")
        .contains("stockade_admissions_total", "stockade_decisions_backlog");

    Metrics scrape = Metrics.scrape(new ApiClient(port).withToken(TestTokens.withRoles("metrics")));

    List<String> missing = expected.stream().filter(name -> scrape.value(name).isEmpty()).toList();
    assertThat(missing).as("metrics of deploy/monitoring missing from the scrape").isEmpty();
  }
}
