package io.stockade.command.sku;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.api.sku.AdjustStockCommand;
import io.stockade.command.admission.GateEpochChangedException;
import io.stockade.command.admission.StockAdjustments;
import io.stockade.command.admission.StockAdjustments.PendingAdjustment;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.modelling.command.AggregateNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The recovery sweeper for a negative adjustment the gate took whose event was not stored within a
 * bound (a crash, a failed database): the units are out of the available stock and the record does
 * not say so. It records the adjustment as it was asked (the gate keeps its content with the take),
 * through the SKU's aggregate, where a late request and the sweeper meet: whichever stores it first
 * stores it once, the other finds it recorded. It never gives the units back, since the request's
 * own commit may have been under way; a take whose record holds the id with another quantity (it
 * can never be recorded) is given back. Safe with several instances.
 */
@Component
@ConditionalOnProperty(
    name = "stockade.recovery.enabled",
    havingValue = "true",
    matchIfMissing = true)
class RecoveringUnrecordedAdjustments {

  private static final Logger log = LoggerFactory.getLogger(RecoveringUnrecordedAdjustments.class);
  private static final int BATCH = 200;

  private final StockAdjustments gate;
  private final CommandGateway commands;
  private final Duration bound;
  private final Counter repairs;

  RecoveringUnrecordedAdjustments(
      StockAdjustments gate,
      CommandGateway commands,
      MeterRegistry meters,
      @Value("${stockade.recovery.unrecorded-after:10s}") Duration bound) {
    this.gate = gate;
    this.commands = commands;
    this.bound = bound;
    this.repairs =
        Counter.builder("stockade.recovery.repairs")
            .description(
                "Half-done changes repaired by the recovery sweepers: admissions never recorded"
                    + " whose units were given back, adjustment takes recorded late")
            .tag("kind", "unrecorded-adjustment")
            .register(meters);
  }

  @Scheduled(fixedDelayString = "${stockade.recovery.interval:5s}")
  void sweep() {
    try {
      // A take across buckets is listed once per bucket: it is settled once.
      Set<String> seen = new HashSet<>();
      for (PendingAdjustment pending : gate.pendingAdjustmentsFor(bound, BATCH)) {
        if (seen.add(pending.skuId() + " " + pending.adjustmentId())) {
          recover(pending);
        }
      }
    } catch (RuntimeException e) {
      log.warn("Adjustment recovery sweep stopped early; the next one goes on", e);
    }
  }

  private void recover(PendingAdjustment pending) {
    Optional<AdjustStockCommand> asked =
        AdjustingStock.fromContent(pending.skuId(), pending.adjustmentId(), pending.content());
    if (asked.isEmpty()) {
      log.error(
          "Adjustment {} of {} is taken in the gate without its content; it stays pending",
          pending.adjustmentId(),
          pending.skuId());
      return;
    }
    try {
      if (commands.<Boolean>sendAndWait(asked.get().takenIn(pending.gateEpoch()))) {
        repairs.increment();
        log.warn(
            "Adjustment {} of {} was taken by the gate but never recorded; recorded now",
            pending.adjustmentId(),
            pending.skuId());
      }
      gate.adjustmentRecorded(pending.skuId(), pending.adjustmentId());
    } catch (AdjustmentIdReusedException reused) {
      if (reused.recordedQuantity() == asked.get().quantity()) {
        // Recorded with the same units (another note): the take is that adjustment's.
        gate.adjustmentRecorded(pending.skuId(), pending.adjustmentId());
      } else {
        gate.giveBackAdjustment(pending.skuId(), pending.adjustmentId());
        repairs.increment();
      }
    } catch (GateEpochChangedException rebuilt) {
      // Rebuilt since it was listed: the take went with the old gate.
    } catch (AggregateNotFoundException unknown) {
      gate.giveBackAdjustment(pending.skuId(), pending.adjustmentId());
      repairs.increment();
    }
  }
}
