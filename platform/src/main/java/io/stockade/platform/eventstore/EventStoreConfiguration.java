package io.stockade.platform.eventstore;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import javax.sql.DataSource;
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

  @Bean
  ObjectMapper axonObjectMapper() {
    return new ObjectMapper()
        .registerModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }
}
