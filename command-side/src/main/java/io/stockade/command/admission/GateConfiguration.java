package io.stockade.command.admission;

import io.lettuce.core.ClientOptions;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** How the gate talks to Redis. */
@Configuration(proxyBeanMethods = false)
class GateConfiguration {

  /**
   * While disconnected, Lettuce would queue commands and send them once Redis is back: a
   * reservation the caller was told is unavailable could then take stock later. Rejected at once
   * instead, "unavailable" means that nothing was sent.
   */
  static ClientOptions.Builder rejectWhileDisconnected(ClientOptions.Builder options) {
    return options.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
  }

  @Bean
  LettuceClientOptionsBuilderCustomizer gateClientOptions() {
    return GateConfiguration::rejectWhileDisconnected;
  }
}
