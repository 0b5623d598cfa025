package io.stockade.query.feed;

import io.micrometer.core.instrument.MeterRegistry;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.springboot.TokenStoreProperties;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import tools.jackson.databind.json.JsonMapper;

/** The Kafka publisher, when {@code stockade.kafka.bootstrap-servers} names a broker. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty("stockade.kafka.bootstrap-servers")
@EnableConfigurationProperties(KafkaPublishing.class)
class KafkaPublisherConfiguration {

  @Bean
  KafkaPublisher kafkaPublisher(
      KafkaPublishing settings,
      EventFeed feed,
      TokenStore tokens,
      TokenStoreProperties tokenStore,
      PlatformTransactionManager transactions,
      JsonMapper json,
      MeterRegistry meters) {
    return new KafkaPublisher(
        settings,
        feed,
        new PublisherLease(tokens, transactions, tokenStore.getClaimTimeout()),
        new CloudEventRecords(settings, json),
        meters);
  }

  /**
   * The component {@code kafka} of the health: what the publisher does, its position and lag.
   * Always UP: the query side serves its reads whether or not the broker answers, so a broker
   * outage must not take it out of service; the lag's metric and alert tell of it (and the details
   * here).
   */
  @Bean
  HealthIndicator kafkaHealthIndicator(KafkaPublisher publisher) {
    return () -> Health.up().withDetails(publisher.status()).build();
  }
}
