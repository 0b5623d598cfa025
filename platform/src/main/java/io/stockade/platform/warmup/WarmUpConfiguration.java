package io.stockade.platform.warmup;

import io.stockade.platform.security.WarmUpTokens;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The warm-up of every Stockade web application ({@link WarmUp}), unless {@code
 * stockade.warm-up.enabled} is {@code false}.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(
    name = "stockade.warm-up.enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(WarmUpProperties.class)
public class WarmUpConfiguration {

  @Bean
  WarmUpTokens warmUpTokens() {
    return new WarmUpTokens(Clock.systemUTC());
  }

  @Bean
  WarmUp warmUp(
      WarmUpProperties properties,
      WarmUpTokens tokens,
      ObjectProvider<WarmUpRequests> exercises,
      ApplicationContext context,
      Environment environment) {
    return new WarmUp(properties, tokens, exercises.orderedStream().toList(), context, environment);
  }

  /**
   * The warm-up closes its tokens when it ends; this closes them in any case before the service
   * reports ready (Spring Boot publishes this event just before readiness).
   */
  @Bean
  ApplicationListener<ApplicationReadyEvent> warmUpTokensClosedWhenReady(WarmUpTokens tokens) {
    return event -> tokens.close();
  }
}
