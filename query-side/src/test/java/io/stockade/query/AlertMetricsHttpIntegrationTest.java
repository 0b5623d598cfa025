package io.stockade.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.localinfra.EmbeddedKafka;
import io.stockade.platform.testing.ApiClient;
import io.stockade.platform.testing.Metrics;
import io.stockade.platform.testing.MonitoringMetrics;
import io.stockade.platform.testing.TestTokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Every metric of the query side that the alert rules and the dashboard of {@code
 * deploy/monitoring} name is in its {@code /actuator/prometheus}, before any request; Kafka's with
 * the publisher running on a real broker started here ({@link EmbeddedKafka}). Its own database,
 * and a context closed after the class (its publisher would go on trying the stopped broker).
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "stockade.local-infra.database=stockade_test_alert_metrics_query",
      "stockade.warm-up.enabled=false"
    })
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class AlertMetricsHttpIntegrationTest {

  private static EmbeddedKafka kafka;

  @LocalServerPort private int port;

  @DynamicPropertySource
  static void kafka(DynamicPropertyRegistry properties) throws IOException {
    kafka = EmbeddedKafka.start(Files.createTempDirectory("alert-metrics-kafka"));
    properties.add("stockade.kafka.bootstrap-servers", kafka::bootstrapServers);
  }

  @AfterAll
  static void stopKafka() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void everyMetricTheAlertsAndTheDashboardNameForTheQuerySideIsScraped() {
    Set<String> expected = MonitoringMetrics.usedBy(Path.of(".."), "query-side");
    assertThat(expected)
        .as("the query side's metrics in deploy/monitoring")
        .contains(
            "stockade_reconciliation_skus",
            "stockade_processor_lag_events",
            "stockade_kafka_lag",
            "stockade_replays_total");

    Metrics scrape = Metrics.scrape(new ApiClient(port).withToken(TestTokens.withRoles("metrics")));

    List<String> missing = expected.stream().filter(name -> scrape.value(name).isEmpty()).toList();
    assertThat(missing).as("metrics of deploy/monitoring missing from the scrape").isEmpty();
  }
}
