package io.stockade.platform.eventstore;

import org.axonframework.common.jpa.EntityManagerProvider;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.eventhandling.tokenstore.jpa.JpaTokenStore;
import org.axonframework.serialization.Serializer;
import org.axonframework.springboot.TokenStoreProperties;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The event processors' token store: Axon's JPA one as its auto-configuration builds it, creating a
 * processor's first segments in a transaction of their own ({@link SharedTokenStore}), so that
 * instances started together on a new database all start. A service that needs its own (the query
 * side names its owners) defines one and builds it the same way.
 */
@AutoConfiguration(beforeName = "org.axonframework.springboot.autoconfig.JpaAutoConfiguration")
public class TokenStoreConfiguration {

  @Bean
  @ConditionalOnMissingBean
  TokenStore tokenStore(
      Serializer serializer,
      EntityManagerProvider entityManagerProvider,
      TokenStoreProperties properties,
      PlatformTransactionManager transactions) {
    return new SharedTokenStore(
        JpaTokenStore.builder()
            .entityManagerProvider(entityManagerProvider)
            .serializer(serializer)
            .claimTimeout(properties.getClaimTimeout()),
        transactions);
  }
}
