package io.stockade.command.sku;

import io.stockade.api.sku.AdjustStockCommand;
import io.stockade.api.sku.AdjustmentReason;
import io.stockade.command.RacedAppends;
import io.stockade.command.admission.GateEpochChangedException;
import io.stockade.command.admission.GateUnavailableException;
import io.stockade.command.admission.StockAdjustments;
import io.stockade.command.admission.StockAdjustments.Adjustment;
import io.stockade.command.admission.StockAdjustments.AdjustmentOutcome;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.modelling.command.AggregateNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Adjusts a SKU's stock, once per adjustment id.
 *
 * <p>A negative adjustment is the gate first: it takes the units from the available stock in one
 * atomic call or refuses, so that it never takes a held or sold unit and the stock never goes below
 * zero; then its event; then the take is marked recorded. A take whose event is not stored stays on
 * the gate's pending list: a repeat with the same id stores it, and so does the recovery sweeper
 * once it is older than a bound ({@code RecoveringUnrecordedAdjustments}); it is never given back
 * on a failure, whose commit may have been under way. Errs towards not selling.
 *
 * <p>A positive adjustment is the event first, then the gate (as a replenishment): a crash between
 * leaves the gate selling less until the gate follower or a repeat applies it.
 */
@Component
class AdjustingStock {

  private static final Logger log = LoggerFactory.getLogger(AdjustingStock.class);

  private final CommandGateway commands;
  private final StockAdjustments gate;
  private final SkuViews views;

  AdjustingStock(CommandGateway commands, StockAdjustments gate, SkuViews views) {
    this.commands = commands;
    this.gate = gate;
    this.views = views;
  }

  /** What an adjustment did: whether it stored its event, and the SKU now. */
  record Adjusted(boolean stored, SkuView sku) {}

  /** Fewer units available than a negative adjustment takes; nothing changed. */
  static final class InsufficientStockException extends RuntimeException {
    private final long available;

    InsufficientStockException(long available) {
      super("Only " + available + " units are available", null, false, false);
      this.available = available;
    }

    long available() {
      return available;
    }
  }

  /**
   * @throws AggregateNotFoundException when the SKU is not registered
   * @throws InsufficientStockException when fewer units are available than a negative one takes
   * @throws AdjustmentIdReusedException when the id was used with other content
   * @throws GateUnavailableException when the gate cannot take or apply it now
   */
  Adjusted adjust(AdjustStockCommand command) {
    if (command.quantity() > 0) {
      boolean stored = store(command);
      Adjustment applied = gate.adjust(command.skuId(), command.adjustmentId(), command.quantity());
      if (applied.outcome() != AdjustmentOutcome.APPLIED
          && applied.outcome() != AdjustmentOutcome.DUPLICATE) {
        // The record has the units; the gate sells fewer until the follower or a repeat applies.
        log.warn(
            "Gate did not apply adjustment {} of {} ({})",
            command.adjustmentId(),
            command.skuId(),
            applied.outcome());
      }
      return new Adjusted(stored, views.of(views.sale(command.skuId())));
    }
    Adjustment taken =
        gate.adjust(command.skuId(), command.adjustmentId(), command.quantity(), content(command));
    switch (taken.outcome()) {
      case INSUFFICIENT -> throw new InsufficientStockException(taken.available());
      case CONFLICT ->
          // Taken before with another quantity (recorded or still to be): not this content's id.
          throw new AdjustmentIdReusedException(command.adjustmentId(), taken.recordedQuantity());
      case UNKNOWN_SKU -> {
        views.requireRegistered(command.skuId());
        throw new GateUnavailableException(
            "SKU " + command.skuId() + " is recorded but not in the gate yet", null);
      }
      case UNAVAILABLE -> throw new GateUnavailableException("The gate did not answer", null);
      default -> {
        // APPLIED, or DUPLICATE: taken before, its event perhaps still to be stored.
      }
    }
    boolean stored;
    try {
      stored = store(command.takenIn(taken.gateEpoch()));
    } catch (GateEpochChangedException rebuilt) {
      // The gate that took the units was rebuilt from the record since: the take is gone with it.
      throw new GateUnavailableException(
          "The gate was rebuilt while adjustment " + command.adjustmentId() + " was taken",
          rebuilt);
    } catch (AdjustmentIdReusedException reused) {
      if (taken.outcome() == AdjustmentOutcome.APPLIED) {
        // Not this id's take: the record has the id with other content and its own units.
        gate.giveBackAdjustment(command.skuId(), command.adjustmentId());
      }
      throw reused;
    }
    gate.adjustmentRecorded(command.skuId(), command.adjustmentId());
    return new Adjusted(stored, views.of(views.sale(command.skuId())));
  }

  /**
   * The adjustment as the gate keeps it with a take, for whoever finds the take pending: "{@code
   * <quantity> <reason>}", then " {@code <note>}" when there is one.
   */
  static String content(AdjustStockCommand command) {
    return command.quantity()
        + " "
        + command.reason().name()
        + (command.note() == null ? "" : " " + command.note());
  }

  /** The adjustment {@link #content} describes, or empty when it is not one. */
  static java.util.Optional<AdjustStockCommand> fromContent(
      String skuId, String adjustmentId, String content) {
    String[] parts = content.split(" ", 3);
    if (parts.length < 2) {
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.of(
          new AdjustStockCommand(
              skuId,
              adjustmentId,
              Integer.parseInt(parts[0]),
              AdjustmentReason.valueOf(parts[1]),
              parts.length == 3 ? parts[2] : null));
    } catch (IllegalArgumentException malformed) {
      return java.util.Optional.empty();
    }
  }

  private boolean store(AdjustStockCommand command) {
    // Other changes of the same SKU race for its stream: the loser goes again.
    return RacedAppends.retried(() -> commands.<Boolean>sendAndWait(command));
  }
}
