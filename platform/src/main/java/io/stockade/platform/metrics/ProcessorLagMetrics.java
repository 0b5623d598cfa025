package io.stockade.platform.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.OptionalLong;
import org.axonframework.config.EventProcessingConfiguration;
import org.axonframework.eventhandling.EventTrackerStatus;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;

/**
 * The gauge {@code stockade.processor.lag} (tag {@code processor}): how many events of the store a
 * streaming event processor of this instance is behind, the head's global index minus the lowest
 * position among the segments this instance processes. NaN while it processes none (another
 * instance holds them, or the processor is stopped, as during a replay). Read at each scrape: one
 * {@code max(global_index)} query per processor.
 */
@AutoConfiguration
@ConditionalOnClass(MeterRegistry.class)
public class ProcessorLagMetrics {

  // Providers, looked up when the application is ready: the registry and Axon's beans come from
  // auto-configurations whose order relative to this one does not matter then.
  private final ObjectProvider<MeterRegistry> meters;
  private final ObjectProvider<EventStore> events;
  private final ObjectProvider<EventProcessingConfiguration> processing;

  ProcessorLagMetrics(
      ObjectProvider<MeterRegistry> meters,
      ObjectProvider<EventStore> events,
      ObjectProvider<EventProcessingConfiguration> processing) {
    this.meters = meters;
    this.events = events;
    this.processing = processing;
  }

  /** Once the processors exist: Axon builds them when the application context starts. */
  @EventListener(ApplicationReadyEvent.class)
  void register() {
    MeterRegistry registry = meters.getIfAvailable();
    EventStore store = events.getIfAvailable();
    EventProcessingConfiguration configuration = processing.getIfAvailable();
    if (registry == null || store == null || configuration == null) {
      return;
    }
    configuration
        .eventProcessors()
        .forEach(
            (name, processor) -> {
              if (processor instanceof StreamingEventProcessor streaming) {
                Gauge.builder("stockade.processor.lag", streaming, p -> lag(p, store))
                    .description("Events of the store this instance's segments have yet to handle")
                    .tag("processor", name)
                    .baseUnit("events")
                    .register(registry);
              }
            });
  }

  private static double lag(StreamingEventProcessor processor, EventStore events) {
    long lowest = Long.MAX_VALUE;
    for (EventTrackerStatus segment : processor.processingStatus().values()) {
      OptionalLong position = segment.getCurrentPosition();
      lowest = Math.min(lowest, position.orElse(-1));
    }
    if (lowest == Long.MAX_VALUE) {
      return Double.NaN;
    }
    TrackingToken head = events.createHeadToken();
    long headPosition = head == null ? -1 : head.position().orElse(-1);
    return Math.max(0, headPosition - lowest);
  }
}
