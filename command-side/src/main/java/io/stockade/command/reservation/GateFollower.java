package io.stockade.command.reservation;

import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.DrawDecided;
import io.stockade.api.sku.PurchaseLimitChanged;
import io.stockade.api.sku.SalePaused;
import io.stockade.api.sku.SaleResumed;
import io.stockade.api.sku.SaleScheduled;
import io.stockade.api.sku.SkuEvent;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockAdjusted;
import io.stockade.api.sku.StockReplenished;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.admission.GateUnavailableException;
import io.stockade.command.admission.ReservationTransitions;
import io.stockade.command.admission.ReservationTransitions.Transition;
import io.stockade.command.admission.SaleControl;
import io.stockade.command.admission.SkuStock;
import io.stockade.command.admission.SkuStock.Replenishment;
import io.stockade.command.admission.StockAdjustments;
import java.util.Optional;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Brings the gate up to the record for every registration, replenishment, confirmation, release and
 * extension, whoever caused it: the request that recorded it (which has usually done it already:
 * each gate update is idempotent), an expiry deadline, or a request that crashed between event and
 * gate. It reads the event stream, so no event is missed; while the gate is unavailable it retries.
 * A confirmation or release names the admission the reservation's {@code StockReserved} records, so
 * that a late or replayed one never ends another admission of the id.
 */
@Component
@ProcessingGroup(GateFollower.PROCESSING_GROUP)
class GateFollower implements ReservationEvent.Fold {

  static final String PROCESSING_GROUP = "gate-follower";

  private static final Logger log = LoggerFactory.getLogger(GateFollower.class);

  private final ReservationTransitions transitions;
  private final SkuStock stock;
  private final SaleControl sale;
  private final StockAdjustments adjustments;
  private final ReservationRecord stored;
  private final EventStore events;

  GateFollower(
      ReservationTransitions transitions,
      SkuStock stock,
      SaleControl sale,
      StockAdjustments adjustments,
      ReservationRecord stored,
      EventStore events) {
    this.transitions = transitions;
    this.stock = stock;
    this.sale = sale;
    this.adjustments = adjustments;
    this.stored = stored;
    this.events = events;
  }

  /**
   * The window a SKU was registered with: the SaleScheduled its registration stored right after
   * SkuRegistered (sequence 1), or null. Seeded with the counters, so that a SKU seeded here is
   * never on sale before it opens.
   */
  private SkuStock.Schedule registeredWindow(String skuId) {
    DomainEventStream stream = events.readEvents(SkuEvent.streamId(skuId), 1);
    if (!stream.hasNext()) {
      return null;
    }
    DomainEventMessage<?> next = stream.next();
    if (next.getSequenceNumber() != 1 || !(next.getPayload() instanceof SkuEvent event)) {
      return null;
    }
    SkuStock.Schedule[] window = {null};
    event.applyTo(
        new SkuEvent.Fold() {
          @Override
          public void on(SaleScheduled scheduled) {
            window[0] =
                new SkuStock.Schedule(
                    scheduled.opensAt(), scheduled.closesAt(), 1, scheduled.prequeueSeconds());
          }

          @Override
          public void on(SkuRegistered registered) {}

          @Override
          public void on(StockReplenished replenished) {}

          @Override
          public void on(SalePaused paused) {}

          @Override
          public void on(SaleResumed resumed) {}

          @Override
          public void on(StockAdjusted adjusted) {}

          @Override
          public void on(PurchaseLimitChanged changed) {}

          @Override
          public void on(DrawDecided decided) {}
        });
    return window[0];
  }

  @EventHandler
  void on(SkuEvent event, @SequenceNumber long sequence) {
    event.applyTo(new SkuFollowing(event.skuId(), sequence));
  }

  // The reservation events that change the gate are handed over one type at a time: a handler of
  // the whole stream would make Axon hand over every StockReserved too (one per reservation, each a
  // transaction and a token update on every instance) only for the follower to ignore it.

  /**
   * Brings the gate up to one event of a SKU's stream: the sale's parts carry the event's sequence
   * number, with which the gate keeps each part, so that a write applied late or twice never undoes
   * a newer one.
   */
  private final class SkuFollowing implements SkuEvent.Fold {

    private final String skuId;
    private final long sequence;

    SkuFollowing(String skuId, long sequence) {
      this.skuId = skuId;
      this.sequence = sequence;
    }

    /**
     * Seeds a SKU whose registration's own gate update never happened (seeding is idempotent), with
     * the window it was registered with, in the same write.
     */
    @Override
    public void on(SkuRegistered event) {
      try {
        stock.register(
            event.skuId(),
            event.initialStock(),
            event.perUserLimit(),
            event.bucketCount(),
            registeredWindow(event.skuId()));
      } catch (GateUnavailableException e) {
        throw new IllegalStateException("Gate unavailable; will retry " + event.skuId(), e);
      }
    }

    /** Applies a replenishment whose own gate update never happened (once per replenishment id). */
    @Override
    public void on(StockReplenished event) {
      Replenishment outcome =
          stock.replenish(event.skuId(), event.replenishmentId(), event.quantity());
      if (outcome == Replenishment.UNAVAILABLE) {
        throw new IllegalStateException("Gate unavailable; will retry " + event.replenishmentId());
      }
      if (outcome != Replenishment.APPLIED && outcome != Replenishment.DUPLICATE) {
        log.error(
            "Gate disagrees with the record about replenishment {} of {} ({})",
            event.replenishmentId(),
            event.skuId(),
            outcome);
      }
    }

    @Override
    public void on(SaleScheduled event) {
      written(
          sale.schedule(
              skuId, sequence, event.opensAt(), event.closesAt(), event.prequeueSeconds()));
    }

    @Override
    public void on(DrawDecided event) {
      written(sale.drawn(skuId, sequence, event.opensAt()));
    }

    @Override
    public void on(SalePaused event) {
      written(sale.pause(skuId, sequence, true));
    }

    @Override
    public void on(SaleResumed event) {
      written(sale.pause(skuId, sequence, false));
    }

    @Override
    public void on(PurchaseLimitChanged event) {
      written(sale.limit(skuId, sequence, event.perUserLimit()));
    }

    /**
     * A positive adjustment whose own gate update never happened is applied; a negative one the
     * gate took before its event was stored is marked recorded (taken now if the gate lost the
     * take: a rebuild restores it from this event too).
     */
    @Override
    public void on(StockAdjusted event) {
      StockAdjustments.Adjustment outcome =
          adjustments.adjust(skuId, event.adjustmentId(), event.quantity());
      switch (outcome.outcome()) {
        case UNAVAILABLE ->
            throw new IllegalStateException("Gate unavailable; will retry " + event.adjustmentId());
        case APPLIED, DUPLICATE -> {
          if (event.quantity() < 0
              && adjustments.adjustmentRecorded(skuId, event.adjustmentId())
                  == StockAdjustments.Settlement.UNAVAILABLE) {
            throw new IllegalStateException("Gate unavailable; will retry " + event.adjustmentId());
          }
        }
        default ->
            log.error(
                "Gate disagrees with the record about adjustment {} of {} ({})",
                event.adjustmentId(),
                skuId,
                outcome.outcome());
      }
    }

    private void written(SaleControl.SaleWrite outcome) {
      if (outcome == SaleControl.SaleWrite.UNAVAILABLE) {
        throw new IllegalStateException("Gate unavailable; will retry " + skuId);
      }
      if (outcome == SaleControl.SaleWrite.UNKNOWN_SKU) {
        // The registration's seeding comes first in the stream; it will have failed loudly.
        log.error("Gate does not know SKU {} to apply its sale's change {}", skuId, sequence);
      }
    }
  }

  @Override
  public void on(StockReserved event) {
    // The request that recorded it was admitted by the gate first: the gate holds it already.
  }

  @Override
  public void on(ReservationAbandoned event) {
    // The recovery that abandons an admission gives its units back in the gate itself.
  }

  /**
   * A confirmation sells the units it names; when they are fewer than reserved, the gate gives the
   * rest back in the same step (the StockReleased NOT_CONFIRMED that follows is that same step).
   */
  @EventHandler
  @Override
  public void on(StockConfirmed event) {
    reserved(event.reservationId())
        .ifPresent(
            reserved ->
                follow(
                    event.reservationId(),
                    transitions.confirm(
                        event.reservationId(),
                        admissionOf(reserved),
                        reserved.lines(),
                        event.lines().equals(reserved.lines()) ? null : event.lines())));
  }

  /** The gate's copy of the hold's end, which it answers a retry with. */
  @EventHandler
  @Override
  public void on(ReservationExtended event) {
    reserved(event.reservationId())
        .ifPresent(
            reserved -> {
              Transition outcome =
                  transitions.extend(
                      event.reservationId(),
                      admissionOf(reserved),
                      reserved.lines(),
                      event.expiresAt());
              if (outcome == Transition.UNAVAILABLE) {
                throw new IllegalStateException(
                    "Gate unavailable; will retry " + event.reservationId());
              }
              // Otherwise done, or the reservation moved on since (ended: its hold no longer
              // matters), or the gate has no intent of it (a rebuild's business, as below).
              log.debug("Extension of {} in the gate: {}", event.reservationId(), outcome);
            });
  }

  @EventHandler
  @Override
  public void on(StockReleased event) {
    if (StockReleased.NOT_CONFIRMED.equals(event.reason())) {
      // The rest of a partial confirmation: the confirmation's step gave these units back.
      return;
    }
    admission(event.reservationId())
        .ifPresent(
            admission ->
                follow(
                    event.reservationId(),
                    transitions.release(
                        event.reservationId(), admission, event.lines(), event.reason())));
  }

  /** The admission the reservation's stream begins with; none (logged) if it begins otherwise. */
  private Optional<AdmissionId> admission(String reservationId) {
    return reserved(reservationId).map(GateFollower::admissionOf);
  }

  /**
   * The StockReserved the reservation's stream begins with; none (logged) if it begins otherwise.
   */
  private Optional<StockReserved> reserved(String reservationId) {
    Optional<StockReserved> reserved = stored.reserved(reservationId);
    if (reserved.isEmpty()) {
      log.error("Reservation {} moved on in the record without a StockReserved", reservationId);
    }
    return reserved;
  }

  private static AdmissionId admissionOf(StockReserved reserved) {
    return new AdmissionId(reserved.admissionSequence(), reserved.gateEpoch());
  }

  private static void follow(String reservationId, Transition outcome) {
    switch (outcome) {
      case UNAVAILABLE:
        // Thrown so that the processor retries this event later instead of skipping it.
        throw new IllegalStateException("Gate unavailable; will retry " + reservationId);
      case NOT_ACTIVE:
        log.error("Gate disagrees with the record about reservation {}", reservationId);
        return;
      case UNKNOWN:
      case OTHER_ADMISSION:
        // Finished long ago (its intent expired, perhaps the id admitted anew since), or the gate
        // lost it: a rebuild's business.
        log.debug("Gate has no intent of reservation {} ({})", reservationId, outcome);
        return;
      default:
    }
  }
}
