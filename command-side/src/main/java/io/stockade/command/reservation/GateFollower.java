package io.stockade.command.reservation;

import io.stockade.api.StreamFold;
import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuEvent;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockReplenished;
import io.stockade.command.admission.AdmissionGate;
import io.stockade.command.admission.AdmissionGate.Replenishment;
import io.stockade.command.admission.AdmissionGate.Transition;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.admission.GateUnavailableException;
import java.util.Optional;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
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
class GateFollower implements StreamFold {

  static final String PROCESSING_GROUP = "gate-follower";

  private static final Logger log = LoggerFactory.getLogger(GateFollower.class);

  private final AdmissionGate gate;
  private final ReservationRecord stored;

  GateFollower(AdmissionGate gate, ReservationRecord stored) {
    this.gate = gate;
    this.stored = stored;
  }

  @EventHandler
  void on(SkuEvent event) {
    event.applyTo(this);
  }

  @EventHandler
  void on(ReservationEvent event) {
    event.applyTo(this);
  }

  /** Seeds a SKU whose registration's own gate update never happened (seeding is idempotent). */
  @Override
  public void on(SkuRegistered event) {
    try {
      gate.register(event.skuId(), event.initialStock(), event.perUserLimit(), event.bucketCount());
    } catch (GateUnavailableException e) {
      throw new IllegalStateException("Gate unavailable; will retry " + event.skuId(), e);
    }
  }

  /** Applies a replenishment whose own gate update never happened (once per replenishment id). */
  @Override
  public void on(StockReplenished event) {
    Replenishment outcome =
        gate.replenish(event.skuId(), event.replenishmentId(), event.quantity());
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
  @Override
  public void on(StockConfirmed event) {
    reserved(event.reservationId())
        .ifPresent(
            reserved ->
                follow(
                    event.reservationId(),
                    gate.confirm(
                        event.reservationId(),
                        admissionOf(reserved),
                        reserved.lines(),
                        event.lines().equals(reserved.lines()) ? null : event.lines())));
  }

  /** The gate's copy of the hold's end, which it answers a retry with. */
  @Override
  public void on(ReservationExtended event) {
    reserved(event.reservationId())
        .ifPresent(
            reserved -> {
              Transition outcome =
                  gate.extend(
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
                    gate.release(event.reservationId(), admission, event.lines(), event.reason())));
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
