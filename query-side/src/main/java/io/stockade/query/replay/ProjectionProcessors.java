package io.stockade.query.replay;

import java.util.List;
import org.axonframework.config.EventProcessingConfiguration;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * This instance's processors of the projections a replay rebuilds. Stopped and started by the
 * replay follower only, on its one thread.
 */
@Component
class ProjectionProcessors {

  private final EventProcessingConfiguration processing;
  private final List<String> names;
  private boolean stopped;

  ProjectionProcessors(
      EventProcessingConfiguration processing,
      @Value("${stockade.replay.processors:stock-projection,reservation-projection}")
          List<String> names) {
    this.processing = processing;
    this.names = List.copyOf(names);
  }

  List<String> names() {
    return names;
  }

  /** Shuts every processor down, which releases this instance's claims on their segments. */
  void stop() {
    if (!stopped) {
      names.forEach(name -> processor(name).shutDown());
      stopped = true;
    }
  }

  /** Starts them again after {@link #stop()}. */
  void start() {
    if (stopped) {
      names.forEach(name -> processor(name).start());
      stopped = false;
    }
  }

  private StreamingEventProcessor processor(String name) {
    return processing
        .eventProcessor(name, StreamingEventProcessor.class)
        .orElseThrow(() -> new IllegalStateException("No streaming processor " + name));
  }
}
