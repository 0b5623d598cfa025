package io.stockade.query.audit;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.platform.openapi.Problem;
import io.stockade.platform.web.Identifier;
import io.stockade.platform.web.ProblemException;
import io.stockade.query.QueryProblems;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The history of one reservation, read from the event store itself rather than from a read model:
 * every event of its stream, oldest first.
 */
@RestController
@RequestMapping("/api/audit/reservations")
class ReservationAuditController {

  private final EventStore eventStore;

  ReservationAuditController(EventStore eventStore) {
    this.eventStore = eventStore;
  }

  @GetMapping("/{reservationId}")
  @Problem(status = 404, codes = QueryProblems.UNKNOWN_RESERVATION)
  List<AuditedEvent> history(@PathVariable @Identifier String reservationId) {
    List<AuditedEvent> history = new ArrayList<>();
    // From sequence 0: the whole stream, never a snapshot in its place.
    DomainEventStream stream = eventStore.readEvents(ReservationEvent.streamId(reservationId), 0);
    while (stream.hasNext()) {
      DomainEventMessage<?> event = stream.next();
      // A reservation's stream holds only its events; kept as a guard.
      if (ReservationEvent.class.isAssignableFrom(event.getPayloadType())) {
        history.add(
            new AuditedEvent(
                event.getPayloadType().getSimpleName(),
                event.getTimestamp(),
                event.getSequenceNumber(),
                event.getPayload()));
      }
    }
    if (history.isEmpty()) {
      throw new ProblemException(
          HttpStatus.NOT_FOUND,
          QueryProblems.UNKNOWN_RESERVATION,
          "Unknown reservation",
          "The event store holds no event of reservation " + reservationId + ".",
          Map.of("reservationId", reservationId));
    }
    return history;
  }
}
