package io.stockade.platform.eventstore;

import java.time.Duration;
import org.axonframework.common.jpa.EntityManagerProvider;
import org.axonframework.config.ConfigurerModule;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.eventhandling.tokenstore.jpa.JpaTokenStore;
import org.axonframework.serialization.Serializer;
import org.axonframework.spring.messaging.unitofwork.SpringTransactionManager;
import org.axonframework.springboot.TokenStoreProperties;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionDefinition;

/**
 * The event processors' token store and transactions, in both services.
 *
 * <p>The token store is Axon's JPA one as its auto-configuration builds it, creating a processor's
 * first segments in a transaction of their own ({@link SharedTokenStore}), so that instances
 * started together on a new database all start. A service that needs its own (the query side names
 * its owners) defines one and builds it the same way.
 *
 * <p>The processors' transactions time out after {@code stockade.processing.transaction-timeout}
 * (30 s) rather than the requests' {@code spring.transaction.default-timeout} (5 s): no caller
 * waits on a processor, and the first transactions of a cold JVM on a loaded machine (a processor
 * creating or claiming its segments) can outlast 5 s, which failed the service's start.
 */
@AutoConfiguration(beforeName = "org.axonframework.springboot.autoconfig.JpaAutoConfiguration")
public class ProcessorsConfiguration {

  /** The property of the processors' transaction timeout, with its default. */
  public static final String TRANSACTION_TIMEOUT = "${stockade.processing.transaction-timeout:30s}";

  @Bean
  @ConditionalOnMissingBean
  TokenStore tokenStore(
      Serializer serializer,
      EntityManagerProvider entityManagerProvider,
      TokenStoreProperties properties,
      PlatformTransactionManager transactions,
      @Value(TRANSACTION_TIMEOUT) Duration timeout) {
    return new SharedTokenStore(
        jpaTokenStore(entityManagerProvider, serializer, properties), transactions, timeout);
  }

  /**
   * Axon's JPA token store as its auto-configuration builds it, for a service that finishes it its
   * own way (the query side names its owner) before it wraps it in a {@link SharedTokenStore}.
   */
  public static JpaTokenStore.Builder jpaTokenStore(
      EntityManagerProvider entityManagerProvider,
      Serializer serializer,
      TokenStoreProperties properties) {
    return JpaTokenStore.builder()
        .entityManagerProvider(entityManagerProvider)
        .serializer(serializer)
        .claimTimeout(properties.getClaimTimeout());
  }

  @Bean
  ConfigurerModule processorTransactions(
      PlatformTransactionManager transactions, @Value(TRANSACTION_TIMEOUT) Duration timeout) {
    DefaultTransactionDefinition definition = definition(timeout);
    return configurer ->
        configurer
            .eventProcessing()
            .registerDefaultTransactionManager(
                configuration -> new SpringTransactionManager(transactions, definition));
  }

  /** A transaction that times out after {@code timeout}, in whole seconds (at least one). */
  static DefaultTransactionDefinition definition(Duration timeout) {
    DefaultTransactionDefinition definition = new DefaultTransactionDefinition();
    definition.setTimeout((int) Math.max(1, (timeout.toMillis() + 999) / 1000));
    return definition;
  }
}
