package io.stockade.command.sku;

import io.stockade.api.sku.ReplenishStockCommand;
import io.stockade.api.sku.SkuState;
import io.stockade.command.RacedAppends;
import io.stockade.command.admission.SkuStock;
import io.stockade.command.admission.SkuStock.Replenishment;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Replenishes a SKU: the event first, then the gate. Both are idempotent per replenishment id, so a
 * repeat of the request also applies a gate update that a crash left undone.
 */
@Component
class ReplenishingStock {

  private static final Logger log = LoggerFactory.getLogger(ReplenishingStock.class);

  private final CommandGateway commands;
  private final SkuStock gate;

  ReplenishingStock(CommandGateway commands, SkuStock gate) {
    this.commands = commands;
    this.gate = gate;
  }

  /**
   * @throws ReplenishmentIdReusedException when the id was used with another quantity
   * @throws org.axonframework.modelling.command.AggregateNotFoundException when the SKU is unknown
   */
  SkuState replenish(ReplenishStockCommand command) {
    // Replenishments of one SKU on other instances race for its stream: the loser goes again.
    SkuState state = RacedAppends.retried(() -> commands.<SkuState>sendAndWait(command));
    Replenishment outcome =
        gate.replenish(command.skuId(), command.replenishmentId(), command.quantity());
    if (outcome != Replenishment.APPLIED && outcome != Replenishment.DUPLICATE) {
      // The record has the stock; the gate sells less until it catches up (rebuild, or a repeat).
      log.warn(
          "Gate did not apply replenishment {} of {} ({})",
          command.replenishmentId(),
          command.skuId(),
          outcome);
    }
    return state;
  }
}
