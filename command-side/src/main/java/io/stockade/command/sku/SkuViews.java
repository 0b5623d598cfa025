package io.stockade.command.sku;

import io.stockade.api.sku.SaleSettings;
import io.stockade.api.sku.SkuEvent;
import io.stockade.command.admission.GateUnavailableException;
import io.stockade.command.admission.SaleControl;
import java.time.Instant;
import java.util.Optional;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.messaging.ResultMessage;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.modelling.command.AggregateNotFoundException;
import org.axonframework.modelling.command.Repository;
import org.springframework.stereotype.Component;

/**
 * A SKU as the gate sees it now, with what only its stream knows (the pre-queue's length, the
 * pause's reason) from the aggregate, the one fold of that stream.
 */
@Component
class SkuViews {

  private final SaleControl gate;
  private final Repository<Sku> skus;
  private final EventStore events;

  SkuViews(SaleControl gate, Repository<Sku> skus, EventStore events) {
    this.gate = gate;
    this.skus = skus;
    this.events = events;
  }

  /**
   * The SKU now, or empty when it is not registered.
   *
   * @throws GateUnavailableException when the gate cannot answer, or does not hold a SKU the record
   *     has (its registration's seeding still to be repeated)
   */
  Optional<SkuView> find(String skuId) {
    if (!registered(skuId)) {
      return Optional.empty();
    }
    return Optional.of(of(sale(skuId)));
  }

  /**
   * The SKU's sale as its stream says now.
   *
   * @throws AggregateNotFoundException when the SKU is not registered
   */
  SaleSettings sale(String skuId) {
    // Loaded in a unit of work of its own, as a command handler would be, and nothing applied.
    ResultMessage<SaleSettings> read =
        DefaultUnitOfWork.startAndGet(null)
            .executeWithResult(() -> skus.load(SkuEvent.streamId(skuId)).invoke(Sku::sale));
    if (read.isExceptional()) {
      if (read.exceptionResult() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new IllegalStateException(
          "SKU " + skuId + " could not be read", read.exceptionResult());
    }
    return read.getPayload();
  }

  /** The SKU now, with the sale as a command just left it. */
  SkuView of(SaleSettings sale) {
    return of(gateState(sale.skuId()), sale);
  }

  /**
   * The gate's clock, by which the sale opens and closes, from the SKU's home bucket.
   *
   * @throws AggregateNotFoundException when the SKU is not registered
   */
  Instant gateNow(String skuId) {
    requireRegistered(skuId);
    return gateState(skuId).now();
  }

  /** Whether the SKU's stream holds its registration: the record's answer, not the gate's. */
  boolean registered(String skuId) {
    return events.lastSequenceNumberFor(SkuEvent.streamId(skuId)).isPresent();
  }

  /**
   * @throws AggregateNotFoundException when the SKU is not registered
   */
  void requireRegistered(String skuId) {
    if (!registered(skuId)) {
      throw new AggregateNotFoundException(SkuEvent.streamId(skuId), "No SKU " + skuId);
    }
  }

  private SaleControl.SkuState gateState(String skuId) {
    return gate.state(skuId)
        .orElseThrow(
            () ->
                new GateUnavailableException(
                    "SKU " + skuId + " is recorded but not in the gate yet", null));
  }

  private static SkuView of(SaleControl.SkuState gate, SaleSettings record) {
    return new SkuView(
        gate.skuId(),
        gate.total(),
        gate.available(),
        gate.reserved(),
        gate.sold(),
        gate.perUserLimit(),
        gate.sale(record.prequeueSeconds(), record.pausedReason()));
  }
}
