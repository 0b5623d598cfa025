package io.stockade.command.reservation;

import io.stockade.api.reservation.ReservationEvent;
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
    return first(reservationId)
        .filter(StockReserved.class::isInstance)
        .map(StockReserved.class::cast);
  }
}
