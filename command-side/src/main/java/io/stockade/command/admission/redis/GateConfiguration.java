package io.stockade.command.admission.redis;

import io.lettuce.core.ClientOptions;
import io.stockade.command.admission.PendingAdmissions;
import io.stockade.command.admission.ReservationTransitions;
import io.stockade.command.admission.Reserving;
import io.stockade.command.admission.SaleControl;
import io.stockade.command.admission.SkuStock;
import io.stockade.command.admission.StockAdjustments;
import java.util.regex.Pattern;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** How the gate talks to Redis, and its ports as beans: the parts that implement them. */
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
  GateOperations gateOperations(
      GateSessions sessions, GateLayout layout, GateProperties properties) {
    return GateOperations.wire(sessions, layout, properties);
  }

  @Bean
  Reserving reserving(GateOperations gate) {
    return gate.reserve();
  }

  @Bean
  ReservationTransitions reservationTransitions(GateOperations gate) {
    return gate.transitions();
  }

  @Bean
  PendingAdmissions pendingAdmissions(GateOperations gate) {
    return gate.pending();
  }

  @Bean
  SkuStock skuStock(GateOperations gate) {
    return gate.stock();
  }

  @Bean
  SaleControl saleControl(GateOperations gate) {
    return gate.sale();
  }

  @Bean
  StockAdjustments stockAdjustments(GateOperations gate) {
    return gate.adjustments();
  }

  @Bean
  LettuceClientOptionsBuilderCustomizer gateClientOptions() {
    return GateConfiguration::rejectWhileDisconnected;
  }
}
