package io.stockade.command.reservation;

import org.axonframework.config.ConfigurerModule;
import org.axonframework.eventhandling.PropagatingErrorHandler;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class GateFollowerConfiguration {

  /** A failing gate update is retried (the processor backs off), never skipped. */
  @Bean
  ConfigurerModule gateFollowerRetries() {
    return configurer ->
        configurer
            .eventProcessing()
            .registerListenerInvocationErrorHandler(
                GateFollower.PROCESSING_GROUP, configuration -> PropagatingErrorHandler.instance());
  }
}
