package io.stockade.platform.eventstore;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import javax.sql.DataSource;
import org.axonframework.common.jdbc.PersistenceExceptionResolver;
import org.axonframework.common.jpa.EntityManagerProvider;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.eventsourcing.eventstore.jpa.JpaEventStorageEngine;
import org.axonframework.serialization.Serializer;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The event store's serialization, shared by both services so that one can read what the other
 * wrote: Jackson 2 (Axon's serializer is built on it; the web layer uses Boot's Jackson 3),
 * ISO-8601 instants, and tolerance for fields added to events later.
 */
@AutoConfiguration(
    beforeName = "org.axonframework.springboot.autoconfig.ObjectMapperAutoConfiguration")
public class EventStoreConfiguration {

  /** Folds of the whole store (a gate rebuild, a first reconciliation) read the table with it. */
  @Bean
  EventTableFold eventTableFold(
      DataSource dataSource,
      ObjectMapper axonObjectMapper,
      @Value("${stockade.event-store.fold-page-size:10000}") int pageSize) {
    return new EventTableFold(dataSource, axonObjectMapper, pageSize);
  }

  /**
   * Axon's JPA storage engine's builder filled as Axon's auto-configuration fills it, for a service
   * that builds an engine of its own (the query side's, fetching more events per query; the command
   * side's gate follower's).
   */
  public static JpaEventStorageEngine.Builder jpaEngine(
      Serializer snapshotSerializer,
      PersistenceExceptionResolver persistenceExceptionResolver,
      Serializer eventSerializer,
      org.axonframework.config.Configuration configuration,
      EntityManagerProvider entityManagerProvider,
      TransactionManager transactionManager) {
    return JpaEventStorageEngine.builder()
        .snapshotSerializer(snapshotSerializer)
        .upcasterChain(configuration.upcasterChain())
        .persistenceExceptionResolver(persistenceExceptionResolver)
        .eventSerializer(eventSerializer)
        .snapshotFilter(configuration.snapshotFilter())
        .entityManagerProvider(entityManagerProvider)
        .transactionManager(transactionManager);
  }

  @Bean
  ObjectMapper axonObjectMapper() {
    return new ObjectMapper()
        .registerModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }
}
