package io.stockade.command.sku;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import io.stockade.api.sku.RegisterSkuCommand;
import io.stockade.api.sku.ReplenishStockCommand;
import io.stockade.api.sku.SkuEvent;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.SkuState;
import io.stockade.api.sku.StockReplenished;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.modelling.command.AggregateCreationPolicy;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.CreationPolicy;
import org.axonframework.spring.stereotype.Aggregate;

/**
 * A SKU's registration and the stock made sellable for it (initial stock and replenishments).
 * Reservations never go through this aggregate: the admission gate decides them, so one hot SKU
 * does not serialize its buyers here.
 */
@Aggregate
class Sku implements SkuEvent.Fold {

  /** The SKU's stream: {@link SkuEvent#streamId}, never a reservation's. */
  @AggregateIdentifier private String streamId;

  private String skuId;
  private int initialStock;
  private Integer perUserLimit;
  private int buckets = 1;
  private long totalStock;
  private final Map<String, Integer> replenishments = new HashMap<>();

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
      return state(true);
    }
    if (initialStock != command.initialStock()
        || !Objects.equals(perUserLimit, command.perUserLimit())
        || buckets != requestedBuckets) {
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
   * The one handler Axon resolves for the stream: the event goes on to this aggregate's fold method
   * for its type, which the compiler checks there is.
   */
  @EventSourcingHandler
  void on(SkuEvent event) {
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
    perUserLimit = event.perUserLimit();
    buckets = event.bucketCount();
    totalStock = event.initialStock();
  }

  private SkuState state(boolean created) {
    return new SkuState(skuId, initialStock, perUserLimit, totalStock, created, buckets);
  }
}
