package io.stockade.platform.logging;

import org.axonframework.config.ConfigurerModule;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.messaging.correlation.MessageOriginProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/** Request ids and the logging context of messages (see {@link LoggingContext}). */
@AutoConfiguration(beforeName = "org.axonframework.springboot.autoconfig.AxonAutoConfiguration")
public class LoggingConfiguration {

  @Bean
  @ConditionalOnWebApplication
  FilterRegistrationBean<RequestIds> requestIds() {
    FilterRegistrationBean<RequestIds> registration =
        new FilterRegistrationBean<>(new RequestIds());
    // Before every other filter, so that whatever they log carries the request id.
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    return registration;
  }

  /** Axon's Spring configuration adds every such bean to the providers of new messages. */
  @Bean
  CorrelationDataProvider loggingCorrelation() {
    return MessageLogging.correlation();
  }

  /**
   * Axon's own provider (correlation and trace ids), which its auto-configuration declares only
   * when no other provider exists.
   */
  @Bean
  CorrelationDataProvider messageOriginCorrelation() {
    return new MessageOriginProvider();
  }

  @Bean
  ConfigurerModule loggingEventHandlerContext() {
    return MessageLogging.eventHandlerContext();
  }
}
