package io.stockade.command.sku;

import io.stockade.api.sku.ChangePurchaseLimitCommand;
import io.stockade.api.sku.PauseSaleCommand;
import io.stockade.api.sku.ResumeSaleCommand;
import io.stockade.api.sku.SaleSettings;
import io.stockade.api.sku.ScheduleSaleCommand;
import io.stockade.command.RacedAppends;
import io.stockade.command.admission.GateUnavailableException;
import io.stockade.command.admission.SaleControl;
import io.stockade.command.admission.SaleControl.SaleWrite;
import io.stockade.command.draw.DrawSeeds;
import java.time.Instant;
import java.util.function.Function;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.springframework.stereotype.Component;

/**
 * Changes a SKU's sale (its window, its pause, its per-user limit): the event first, then the gate,
 * which holds each part with the version of the event that set it. The answer comes once every
 * bucket of the SKU holds it, so that after a pause's 200 no instance admits a unit of the SKU. A
 * repeat writes the gate again with the record's version: it completes a write that a crash or an
 * unreachable gate left undone (the gate follower does too, from the event).
 */
@Component
class ChangingSale {

  private final CommandGateway commands;
  private final SaleControl gate;
  private final SkuViews views;
  private final DrawSeeds draws;

  ChangingSale(CommandGateway commands, SaleControl gate, SkuViews views, DrawSeeds draws) {
    this.commands = commands;
    this.gate = gate;
    this.views = views;
    this.draws = draws;
  }

  /**
   * @throws SaleAlreadyOpenException when the sale has opened by the gate's clock and the opening
   *     would change
   */
  Changed schedule(String skuId, Instant opensAt, Instant closesAt, int prequeueSeconds) {
    Instant now = views.gateNow(skuId);
    String commitment = prequeueSeconds > 0 ? draws.commitmentFor(opensAt, skuId) : null;
    return changed(
        new ScheduleSaleCommand(skuId, opensAt, closesAt, prequeueSeconds, now, commitment),
        sale ->
            gate.schedule(
                skuId,
                sale.scheduleVersion(),
                sale.opensAt(),
                sale.closesAt(),
                sale.prequeueSeconds()));
  }

  Changed pause(String skuId, String reason) {
    return changed(
        new PauseSaleCommand(skuId, reason),
        sale -> gate.pause(skuId, sale.pauseVersion(), sale.paused()));
  }

  /** A resume of a sale never paused changes nothing, in the record or in the gate. */
  Changed resume(String skuId) {
    return changed(
        new ResumeSaleCommand(skuId),
        sale ->
            sale.pauseVersion() < 0
                ? SaleWrite.STALE
                : gate.pause(skuId, sale.pauseVersion(), sale.paused()));
  }

  Changed limit(String skuId, Integer perUserLimit) {
    return changed(
        new ChangePurchaseLimitCommand(skuId, perUserLimit),
        sale -> gate.limit(skuId, sale.limitVersion(), sale.perUserLimit()));
  }

  /** What a sale command did: whether it stored an event, and the SKU now. */
  record Changed(boolean stored, SkuView sku) {}

  private Changed changed(Object command, Function<SaleSettings, SaleWrite> write) {
    // Other changes of the same SKU on other instances race for its stream: the loser goes again.
    SaleSettings sale = RacedAppends.retried(() -> commands.<SaleSettings>sendAndWait(command));
    SaleWrite written = write.apply(sale);
    if (written == SaleWrite.UNAVAILABLE || written == SaleWrite.UNKNOWN_SKU) {
      throw new GateUnavailableException(
          "The change is recorded but not every bucket of the gate holds it yet (" + written + ")",
          null);
    }
    return new Changed(sale.changed(), views.of(sale));
  }
}
