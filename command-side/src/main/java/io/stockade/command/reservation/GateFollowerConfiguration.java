package io.stockade.command.reservation;

import io.stockade.platform.eventstore.EventStoreConfiguration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.axonframework.common.jdbc.PersistenceExceptionResolver;
import org.axonframework.common.jpa.EntityManagerProvider;
import org.axonframework.common.stream.BlockingStream;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.config.ConfigurerModule;
import org.axonframework.eventhandling.PropagatingErrorHandler;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.EmbeddedEventStore;
import org.axonframework.messaging.StreamableMessageSource;
import org.axonframework.serialization.Serializer;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class GateFollowerConfiguration {

  /**
   * The name of the gate follower's source of events (its processor's {@code source} in
   * application.yml).
   */
  static final String SOURCE = "gateFollowerEvents";

  /**
   * How long the follower's source waits before it reads the store again once it has read all of
   * it: events written by SQL (the draw's, the reservations stored many to a transaction) reach the
   * follower within it.
   */
  private static final long FETCH_DELAY_MILLIS = 200;

  /** A failing gate update is retried (the processor backs off), never skipped. */
  @Bean
  ConfigurerModule gateFollowerRetries() {
    return configurer ->
        configurer
            .eventProcessing()
            .registerListenerInvocationErrorHandler(
                GateFollower.PROCESSING_GROUP, configuration -> PropagatingErrorHandler.instance());
  }

  /**
   * The store as the gate follower reads it ({@link FollowedEventStorage}): a store of its own over
   * the same table, so that no other reader of the store gets payloads left out.
   */
  @Bean(SOURCE)
  FollowedEvents gateFollowerEvents(
      Serializer defaultSerializer,
      PersistenceExceptionResolver persistenceExceptionResolver,
      @Qualifier("eventSerializer") Serializer eventSerializer,
      org.axonframework.config.Configuration configuration,
      EntityManagerProvider entityManagerProvider,
      TransactionManager transactionManager) {
    FollowedEventStorage storage =
        new FollowedEventStorage(
            EventStoreConfiguration.jpaEngine(
                    defaultSerializer,
                    persistenceExceptionResolver,
                    eventSerializer,
                    configuration,
                    entityManagerProvider,
                    transactionManager)
                .batchSize(1000),
            FollowedEventStorage.handledBy(GateFollower.class));
    return new FollowedEvents(
        storage,
        EmbeddedEventStore.builder()
            .storageEngine(storage)
            .fetchDelay(FETCH_DELAY_MILLIS)
            .timeUnit(TimeUnit.MILLISECONDS)
            .build());
  }

  /**
   * The follower's source: only a source of events (not an event store or bus, which would stand in
   * for the service's own), stopped with the context.
   */
  static final class FollowedEvents
      implements StreamableMessageSource<TrackedEventMessage<?>>, DisposableBean {

    private final FollowedEventStorage storage;
    private final EmbeddedEventStore store;

    FollowedEvents(FollowedEventStorage storage, EmbeddedEventStore store) {
      this.storage = storage;
      this.store = store;
    }

    /** The storage it reads, for tests: read directly, its pages do not depend on timing. */
    FollowedEventStorage storage() {
      return storage;
    }

    @Override
    public BlockingStream<TrackedEventMessage<?>> openStream(TrackingToken trackingToken) {
      return store.openStream(trackingToken);
    }

    @Override
    public TrackingToken createTailToken() {
      return store.createTailToken();
    }

    @Override
    public TrackingToken createHeadToken() {
      return store.createHeadToken();
    }

    @Override
    public TrackingToken createTokenAt(Instant dateTime) {
      return store.createTokenAt(dateTime);
    }

    @Override
    public void destroy() {
      store.shutDown();
    }
  }
}
