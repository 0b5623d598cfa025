package io.stockade.command.sku;

import io.stockade.api.sku.RegisterSkuCommand;
import io.stockade.api.sku.SaleSettings;
import io.stockade.api.sku.SaleWindow;
import io.stockade.api.sku.SkuState;
import io.stockade.command.admission.SkuStock;
import io.stockade.command.draw.DrawSeeds;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.modelling.command.AggregateStreamCreationException;
import org.springframework.stereotype.Component;

/**
 * Registers a SKU: the event first, then the gate's counters. A crash between the two leaves a SKU
 * the gate does not know yet (it refuses, never oversells); repeating the registration seeds the
 * gate, since seeding is idempotent.
 */
@Component
class RegisteringSku {

  private final CommandGateway commands;
  private final SkuStock gate;
  private final SkuViews views;
  private final DrawSeeds draws;

  RegisteringSku(CommandGateway commands, SkuStock gate, SkuViews views, DrawSeeds draws) {
    this.commands = commands;
    this.gate = gate;
    this.views = views;
    this.draws = draws;
  }

  SkuState register(RegisterSkuCommand asked) {
    // A pre-queue's draw is committed to with the schedule: its commitment goes into the event.
    SaleWindow window = asked.sale();
    RegisterSkuCommand command =
        window == null || window.prequeueSeconds() == 0
            ? asked
            : new RegisterSkuCommand(
                asked.skuId(),
                asked.initialStock(),
                asked.perUserLimit(),
                asked.buckets(),
                window,
                draws.commitmentFor(window.opensAt(), asked.skuId()));
    SkuState state;
    try {
      state = commands.sendAndWait(command);
    } catch (AggregateStreamCreationException concurrentlyCreated) {
      // Another request registered the same SKU at the same moment: compare with it.
      state = commands.sendAndWait(command);
    }
    // The initial stock only: replenishments reach the gate one by one, with their ids, so that
    // none can be counted twice. The window the SKU was registered with in the same write: no
    // reservation is admitted before it is there.
    SkuStock.Schedule schedule = null;
    if (command.sale() != null) {
      SaleSettings sale = views.sale(command.skuId());
      if (sale.scheduleVersion() >= 0) {
        schedule =
            new SkuStock.Schedule(
                sale.opensAt(), sale.closesAt(), sale.scheduleVersion(), sale.prequeueSeconds());
      }
    }
    gate.register(
        state.skuId(), state.initialStock(), state.perUserLimit(), state.buckets(), schedule);
    return state;
  }
}
