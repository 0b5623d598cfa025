package io.stockade.query;

import io.stockade.platform.eventstore.EventStoreConfiguration;
import org.axonframework.common.jdbc.PersistenceExceptionResolver;
import org.axonframework.common.jpa.EntityManagerProvider;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.axonframework.serialization.Serializer;
import org.axonframework.springboot.util.RegisterDefaultEntities;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The event store as the query side reads it: Axon's JPA storage engine, as auto-configured, but
 * fetching more events per query (its entities registered as the auto-configuration does). The
 * processors hand a fetch's events to their segments; with larger fetches each segment's
 * transaction applies more events at once, which is most of what a replay costs.
 */
@Configuration(proxyBeanMethods = false)
@RegisterDefaultEntities(packages = "org.axonframework.eventsourcing.eventstore.jpa")
class EventStoreReading {

  @Bean
  EventStorageEngine eventStorageEngine(
      Serializer defaultSerializer,
      PersistenceExceptionResolver persistenceExceptionResolver,
      @Qualifier("eventSerializer") Serializer eventSerializer,
      org.axonframework.config.Configuration configuration,
      EntityManagerProvider entityManagerProvider,
      TransactionManager transactionManager,
      @Value("${stockade.event-store.fetch-size:1000}") int fetchSize) {
    return EventStoreConfiguration.jpaEngine(
            defaultSerializer,
            persistenceExceptionResolver,
            eventSerializer,
            configuration,
            entityManagerProvider,
            transactionManager)
        .batchSize(fetchSize)
        .build();
  }
}
