package io.stockade.command.sku;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import io.stockade.api.sku.AdjustStockCommand;
import io.stockade.api.sku.ChangePurchaseLimitCommand;
import io.stockade.api.sku.DecideDrawCommand;
import io.stockade.api.sku.DrawDecided;
import io.stockade.api.sku.PauseSaleCommand;
import io.stockade.api.sku.PurchaseLimitChanged;
import io.stockade.api.sku.RegisterSkuCommand;
import io.stockade.api.sku.ReplenishStockCommand;
import io.stockade.api.sku.ResumeSaleCommand;
import io.stockade.api.sku.SalePaused;
import io.stockade.api.sku.SaleResumed;
import io.stockade.api.sku.SaleScheduled;
import io.stockade.api.sku.SaleSettings;
import io.stockade.api.sku.SaleWindow;
import io.stockade.api.sku.ScheduleSaleCommand;
import io.stockade.api.sku.SkuEvent;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.SkuState;
import io.stockade.api.sku.StockAdjusted;
import io.stockade.api.sku.StockReplenished;
import io.stockade.command.admission.AdmissionFence;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.modelling.command.AggregateCreationPolicy;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.CreationPolicy;
import org.axonframework.spring.stereotype.Aggregate;

/**
 * A SKU's registration, the stock made sellable for it (initial stock, replenishments, adjustments)
 * and its sale (schedule, pause, per-user limit). Reservations never go through this aggregate: the
 * admission gate decides them, so one hot SKU does not serialize its buyers here. The gate holds
 * the sale's parts with the sequence number of the event that set each, so that writes applied late
 * or twice (by a command's repeat, the gate follower) never undo a newer one.
 */
@Aggregate
class Sku implements SkuEvent.Fold {

  /** The SKU's stream: {@link SkuEvent#streamId}, never a reservation's. */
  @AggregateIdentifier private String streamId;

  private String skuId;
  private int initialStock;

  /** As registered: a repeat of the registration is compared with them. */
  private Integer registeredLimit;

  private SaleWindow registeredSale;

  private int buckets = 1;
  private long totalStock;
  private final Map<String, Integer> replenishments = new HashMap<>();
  private final Map<String, StockAdjusted> adjustments = new HashMap<>();

  private Instant opensAt;
  private Instant closesAt;
  private int prequeueSeconds;
  private String drawCommitment;
  private long scheduleVersion = -1;
  private boolean paused;
  private String pausedReason;
  private long pauseVersion = -1;
  private Integer perUserLimit;
  private long limitVersion;

  /** The opening whose pre-queue's draw was decided last, and the sequence of its DrawDecided. */
  private Instant drawnOpensAt;

  private long drawnVersion = -1;

  /** The sequence number, in the stream, of the event being applied. */
  private long sequence;

  Sku() {}

  @CommandHandler
  @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
  SkuState handle(RegisterSkuCommand command) {
    int requestedBuckets = command.buckets() == null ? 1 : command.buckets();
    if (skuId == null) {
      apply(
          new SkuRegistered(
              command.skuId(),
              command.initialStock(),
              command.perUserLimit(),
              requestedBuckets == 1 ? null : requestedBuckets));
      SaleWindow sale = command.sale();
      if (sale != null) {
        // In the registration's transaction: the SKU is never on sale without its window.
        apply(
            new SaleScheduled(
                command.skuId(),
                sale.opensAt(),
                sale.closesAt(),
                sale.prequeueSeconds(),
                committed(sale.prequeueSeconds(), command.drawCommitment())));
      }
      return state(true);
    }
    if (initialStock != command.initialStock()
        || !Objects.equals(registeredLimit, command.perUserLimit())
        || buckets != requestedBuckets
        || !Objects.equals(registeredSale, command.sale())) {
      throw new SkuAlreadyRegisteredException(state(false));
    }
    return state(false);
  }

  /** Adds stock once per replenishment id; the same id with another quantity is refused. */
  @CommandHandler
  SkuState handle(ReplenishStockCommand command) {
    Integer applied = replenishments.get(command.replenishmentId());
    if (applied == null) {
      apply(new StockReplenished(command.skuId(), command.replenishmentId(), command.quantity()));
      return state(true);
    }
    if (applied != command.quantity()) {
      throw new ReplenishmentIdReusedException(command.replenishmentId(), applied);
    }
    return state(false);
  }

  /**
   * Gives the sale its window while it has not opened by the gate's clock; after that only its end
   * may change.
   *
   * @throws SaleAlreadyOpenException when the sale has opened and the opening would change
   */
  @CommandHandler
  SaleSettings handle(ScheduleSaleCommand command) {
    boolean same =
        Objects.equals(opensAt, command.opensAt())
            && Objects.equals(closesAt, command.closesAt())
            && prequeueSeconds == command.prequeueSeconds();
    if (same) {
      return sale(false);
    }
    // On sale from its registration when it has no schedule; with a pre-queue, its opening is
    // fixed from the pre-queue's start (reservations are queued for a draw at that opening).
    boolean open =
        opensAt == null || !command.gateNow().isBefore(opensAt.minusSeconds(prequeueSeconds));
    if (open
        && !(Objects.equals(opensAt, command.opensAt())
            && prequeueSeconds == command.prequeueSeconds())) {
      throw new SaleAlreadyOpenException(skuId, opensAt);
    }
    apply(
        new SaleScheduled(
            skuId,
            command.opensAt(),
            command.closesAt(),
            command.prequeueSeconds(),
            committed(command.prequeueSeconds(), command.drawCommitment())));
    return sale(true);
  }

  /**
   * The draw's commitment a window with a pre-queue is scheduled with: the command's, which its use
   * case took from the draw's seed ({@code DrawSeeds}); none without a pre-queue.
   *
   * @throws IllegalArgumentException when a pre-queue comes without a commitment: a draw never
   *     opens without one
   */
  private static String committed(int prequeueSeconds, String drawCommitment) {
    if (prequeueSeconds == 0) {
      return null;
    }
    if (drawCommitment == null) {
      throw new IllegalArgumentException("A pre-queue is scheduled with its draw's commitment");
    }
    return drawCommitment;
  }

  /**
   * Records the pre-queue's draw at the command's opening as decided; a repeat changes nothing.
   *
   * @return the sequence number of the SKU's {@code DrawDecided} for that opening; -1 when its sale
   *     does not open then with a pre-queue
   */
  @CommandHandler
  long handle(DecideDrawCommand command) {
    if (!command.opensAt().equals(opensAt) || prequeueSeconds == 0) {
      // Rescheduled since it was scheduled into that draw: not in it.
      return -1;
    }
    if (!command.opensAt().equals(drawnOpensAt)) {
      apply(
          new DrawDecided(
              skuId, command.opensAt(), command.seed(), command.queued(), command.admitted()));
    }
    return drawnVersion;
  }

  /** Pauses the sale; a repeat while paused changes nothing (its reason included). */
  @CommandHandler
  SaleSettings handle(PauseSaleCommand command) {
    if (paused) {
      return sale(false);
    }
    apply(new SalePaused(skuId, command.reason()));
    return sale(true);
  }

  /** Resumes the sale; a repeat while not paused changes nothing. */
  @CommandHandler
  SaleSettings handle(ResumeSaleCommand command) {
    if (!paused) {
      return sale(false);
    }
    apply(new SaleResumed(skuId));
    return sale(true);
  }

  /** Changes the per-user limit; the same limit again changes nothing. */
  @CommandHandler
  SaleSettings handle(ChangePurchaseLimitCommand command) {
    if (Objects.equals(perUserLimit, command.perUserLimit())) {
      return sale(false);
    }
    apply(new PurchaseLimitChanged(skuId, command.perUserLimit()));
    return sale(true);
  }

  /**
   * Records an adjustment once per adjustment id (a negative one the gate has already taken from
   * the available stock); the same id with other content is refused.
   *
   * @return whether it stored the event (false for a repeat)
   * @throws AdjustmentIdReusedException when the id was used with other content
   * @throws io.stockade.command.admission.GateEpochChangedException when the gate that took a
   *     negative one has been rebuilt since (the take is gone with it)
   */
  @CommandHandler
  boolean handle(AdjustStockCommand command, AdmissionFence fence) {
    StockAdjusted recorded = adjustments.get(command.adjustmentId());
    StockAdjusted asked =
        new StockAdjusted(
            skuId, command.adjustmentId(), command.quantity(), command.reason(), command.note());
    if (recorded == null) {
      if (command.gateEpoch() != null) {
        // A take of a gate since rebuilt is not in the rebuilt gate: its record must not be.
        fence.check(command.gateEpoch());
      }
      apply(asked);
      return true;
    }
    if (!recorded.equals(asked)) {
      throw new AdjustmentIdReusedException(recorded.adjustmentId(), recorded.quantity());
    }
    return false;
  }

  @Override
  public void on(SaleScheduled event) {
    if (sequence == 1) {
      // Right after the registration only the registration's own window can come: a SKU
      // registered without one is on sale at once, and its opening can no longer change.
      registeredSale = new SaleWindow(event.opensAt(), event.closesAt(), event.prequeueSeconds());
    }
    opensAt = event.opensAt();
    closesAt = event.closesAt();
    prequeueSeconds = event.prequeueSeconds();
    drawCommitment = event.drawCommitment();
    scheduleVersion = sequence;
  }

  @Override
  public void on(DrawDecided event) {
    drawnOpensAt = event.opensAt();
    drawnVersion = sequence;
  }

  @Override
  public void on(SalePaused event) {
    paused = true;
    pausedReason = event.reason();
    pauseVersion = sequence;
  }

  @Override
  public void on(SaleResumed event) {
    paused = false;
    pausedReason = null;
    pauseVersion = sequence;
  }

  @Override
  public void on(PurchaseLimitChanged event) {
    perUserLimit = event.perUserLimit();
    limitVersion = sequence;
  }

  @Override
  public void on(StockAdjusted event) {
    adjustments.put(event.adjustmentId(), event);
    totalStock += event.quantity();
  }

  /**
   * The one handler Axon resolves for the stream: the event goes on to this aggregate's fold method
   * for its type, which the compiler checks there is.
   */
  @EventSourcingHandler
  void on(SkuEvent event, @SequenceNumber long sequence) {
    // The sale's parts are held in the gate with the sequence number of the event that set each.
    this.sequence = sequence;
    event.applyTo(this);
  }

  @Override
  public void on(StockReplenished event) {
    replenishments.put(event.replenishmentId(), event.quantity());
    totalStock += event.quantity();
  }

  @Override
  public void on(SkuRegistered event) {
    streamId = SkuEvent.streamId(event.skuId());
    skuId = event.skuId();
    initialStock = event.initialStock();
    registeredLimit = event.perUserLimit();
    perUserLimit = event.perUserLimit();
    limitVersion = sequence;
    buckets = event.bucketCount();
    totalStock = event.initialStock();
  }

  private SkuState state(boolean created) {
    return new SkuState(skuId, initialStock, registeredLimit, totalStock, created, buckets);
  }

  /** The sale as the stream says now (no event stored). */
  SaleSettings sale() {
    return sale(false);
  }

  private SaleSettings sale(boolean changed) {
    return new SaleSettings(
        skuId,
        changed,
        opensAt,
        closesAt,
        prequeueSeconds,
        scheduleVersion,
        paused,
        pausedReason,
        pauseVersion,
        perUserLimit,
        limitVersion,
        drawCommitment);
  }
}
