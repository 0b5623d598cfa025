package io.stockade.command.admission.redis;

import io.lettuce.core.ClientOptions;
import java.util.regex.Pattern;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** How the gate talks to Redis. */
@Configuration(proxyBeanMethods = false)
class GateConfiguration {

  /**
   * Partitions on a Redis Cluster unless configured: a few per master of a 3 to 5 master cluster.
   */
  static final int CLUSTER_PARTITIONS = 16;

  /**
   * While disconnected, Lettuce would queue commands and send them once Redis is back: a
   * reservation the caller was told is unavailable could then take stock later. Rejected at once
   * instead, "unavailable" means that nothing was sent.
   */
  static ClientOptions.Builder rejectWhileDisconnected(ClientOptions.Builder options) {
    return options.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
  }

  @Bean
  GateLayout gateLayout(GateProperties properties, DataRedisConnectionDetails redis) {
    int partitions =
        properties.partitions() != null
            ? properties.partitions()
            : redis.getCluster() == null ? 1 : CLUSTER_PARTITIONS;
    String placement = properties.placementPattern();
    return new GateLayout(
        partitions, placement == null || placement.isEmpty() ? null : Pattern.compile(placement));
  }

  @Bean
  LettuceClientOptionsBuilderCustomizer gateClientOptions() {
    return GateConfiguration::rejectWhileDisconnected;
  }
}
