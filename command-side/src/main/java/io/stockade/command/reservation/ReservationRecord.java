package io.stockade.command.reservation;

import io.stockade.api.StreamFold;
import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.command.admission.AdmissionId;
import java.util.Optional;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.springframework.stereotype.Component;

/** What the event store holds of a reservation's start: which admission of its id it recorded. */
@Component
class ReservationRecord {

  private final EventStore events;

  ReservationRecord(EventStore events) {
    this.events = events;
  }

  /** The first event of the reservation's stream: its StockReserved, or the sweeper's tombstone. */
  Optional<Object> first(String reservationId) {
    DomainEventStream stream = events.readEvents(ReservationEvent.streamId(reservationId));
    return stream.hasNext() ? Optional.of(stream.next().getPayload()) : Optional.empty();
  }

  /** The admission the reservation's StockReserved records, if it has one. */
  Optional<AdmissionId> admission(String reservationId) {
    return reserved(reservationId)
        .map(reserved -> new AdmissionId(reserved.admissionSequence(), reserved.gateEpoch()));
  }

  /** The reservation's StockReserved, if its stream begins with one. */
  Optional<StockReserved> reserved(String reservationId) {
    return first(reservationId).flatMap(ReservationRecord::reservedIn);
  }

  /** The StockReserved a stream's first event is, if it is one (not a tombstone). */
  static Optional<StockReserved> reservedIn(Object first) {
    Beginning beginning = new Beginning();
    StreamFold.reservationEvent(first).applyTo(beginning);
    return Optional.ofNullable(beginning.reserved);
  }

  /** What a reservation's stream begins with: the StockReserved, or nothing admitted. */
  private static final class Beginning implements ReservationEvent.Fold {

    private StockReserved reserved;

    @Override
    public void on(StockReserved event) {
      reserved = event;
    }

    @Override
    public void on(ReservationAbandoned event) {
      // The sweeper's tombstone: no admission of the id was recorded.
    }

    @Override
    public void on(StockConfirmed event) {
      // Never first: a confirmation follows the StockReserved.
    }

    @Override
    public void on(StockReleased event) {
      // Never first: a release follows the StockReserved.
    }

    @Override
    public void on(ReservationExtended event) {
      // Never first: an extension follows the StockReserved.
    }
  }
}
