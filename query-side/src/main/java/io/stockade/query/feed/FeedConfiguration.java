package io.stockade.query.feed;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.platform.eventstore.SettledHorizon;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/** The event feed's horizon: where its readers may pass a hole in the event table. */
@Configuration(proxyBeanMethods = false)
class FeedConfiguration {

  @Bean
  SettledHorizon settledHorizon(
      JdbcTemplate jdbc,
      @Value("${stockade.event-feed.gap-timeout:60s}") Duration gapTimeout,
      @Value("${stockade.event-feed.poll-interval:200ms}") Duration interval,
      MeterRegistry meters) {
    SettledHorizon horizon = new SettledHorizon(jdbc, "The event feed", gapTimeout, interval);
    Gauge.builder(
            "stockade.event.feed.hole.wait", horizon, h -> h.waiting().toNanos() / 1_000_000_000.0)
        .description(
            "Seconds the event feed (its readers and the Kafka publisher) has been held at a hole"
                + " of the event table that a transaction may still fill; 0 when it waits at none")
        .baseUnit("seconds")
        .register(meters);
    return horizon;
  }
}
