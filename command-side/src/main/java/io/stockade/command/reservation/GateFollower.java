package io.stockade.command.reservation;

import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.command.admission.AdmissionGate;
import io.stockade.command.admission.AdmissionGate.Transition;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Brings the gate up to the record for every confirmation and release, whoever caused it: the
 * request that recorded it (which has usually done it already: the gate's transitions are
 * idempotent), an expiry deadline, or a request that crashed between event and gate. It reads the
 * event stream, so no event is missed; while the gate is unavailable it retries.
 */
@Component
@ProcessingGroup(GateFollower.PROCESSING_GROUP)
class GateFollower {

  static final String PROCESSING_GROUP = "gate-follower";

  private static final Logger log = LoggerFactory.getLogger(GateFollower.class);

  private final AdmissionGate gate;

  GateFollower(AdmissionGate gate) {
    this.gate = gate;
  }

  @EventHandler
  void on(StockConfirmed event) {
    follow(event.reservationId(), gate.confirm(event.reservationId()));
  }

  @EventHandler
  void on(StockReleased event) {
    follow(event.reservationId(), gate.release(event.reservationId(), event.reason()));
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
        // Finished long ago (its intent expired), or the gate lost it: a rebuild's business.
        log.debug("Gate has no intent for reservation {}", reservationId);
        return;
      default:
    }
  }
}
