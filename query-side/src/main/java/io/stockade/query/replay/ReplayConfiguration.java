package io.stockade.query.replay;

import io.stockade.platform.eventstore.ProcessorsConfiguration;
import io.stockade.platform.eventstore.SharedTokenStore;
import java.time.Duration;
import org.axonframework.common.jpa.EntityManagerProvider;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.serialization.Serializer;
import org.axonframework.springboot.TokenStoreProperties;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The replay's settings, this instance's name, and Axon's JPA token store as auto-configured but
 * owned by that name rather than the JVM's: a replay resets the tokens only once no other instance
 * claims them; its first segments are created in a transaction of their own ({@link
 * SharedTokenStore}).
 */
@Configuration(proxyBeanMethods = false)
class ReplayConfiguration {

  @Bean
  ReplaySettings replaySettings(
      @Value("${stockade.replay.poll-interval:500ms}") Duration pollInterval,
      @Value("${stockade.replay.lease:5s}") Duration lease,
      @Value("${stockade.replay.reset-timeout:30s}") Duration resetTimeout,
      @Value("${stockade.replay.keep:100}") int keep) {
    return new ReplaySettings(pollInterval, lease, resetTimeout, keep);
  }

  @Bean
  QueryNode queryNode() {
    return QueryNode.unique();
  }

  @Bean
  TokenStore tokenStore(
      EntityManagerProvider entityManagerProvider,
      Serializer serializer,
      TokenStoreProperties properties,
      QueryNode node,
      PlatformTransactionManager transactions,
      @Value(ProcessorsConfiguration.TRANSACTION_TIMEOUT) Duration timeout) {
    return new SharedTokenStore(
        ProcessorsConfiguration.jpaTokenStore(entityManagerProvider, serializer, properties)
            .nodeId(node.name()),
        transactions,
        timeout);
  }
}
