package io.stockade.platform.warmup;

import io.stockade.platform.security.WarmUpTokens;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The warm-up of every Stockade web application ({@link WarmUp}); it sends nothing when {@code
 * stockade.warm-up.enabled} is {@code false}.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@EnableConfigurationProperties(WarmUpProperties.class)
public class WarmUpConfiguration {

  @Bean
  @ConditionalOnProperty(
      name = "stockade.warm-up.enabled",
      havingValue = "true",
      matchIfMissing = true)
  WarmUpTokens warmUpTokens() {
    return new WarmUpTokens(Clock.systemUTC());
  }

  /**
   * Also the health component {@code warmUp}, which a readiness group should include; up at once
   * when the warm-up is off.
   */
  @Bean
  WarmUp warmUp(
      WarmUpProperties properties,
      ObjectProvider<WarmUpTokens> tokens,
      ObjectProvider<WarmUpRequests> exercises,
      ApplicationContext context,
      Environment environment) {
    return new WarmUp(
        properties,
        tokens.getIfAvailable(),
        exercises.orderedStream().toList(),
        context,
        environment);
  }
}
