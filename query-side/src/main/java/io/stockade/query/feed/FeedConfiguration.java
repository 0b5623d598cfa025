package io.stockade.query.feed;

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
      @Value("${stockade.event-feed.poll-interval:200ms}") Duration interval) {
    return new SettledHorizon(jdbc, "The event feed", gapTimeout, interval);
  }
}
