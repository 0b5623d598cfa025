package io.stockade.query.reservation;

import io.stockade.api.reservation.FindReservationQuery;
import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationView;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import java.time.Instant;
import java.util.Optional;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.ResetHandler;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.eventhandling.Timestamp;
import org.axonframework.queryhandling.QueryHandler;
import org.springframework.stereotype.Component;

/**
 * Reservations, from the event stream. Runs in a pooled streaming processor with several segments
 * (a reservation's events stay in one segment, in order); its token is stored in the same database
 * transaction as the rows it changes. Every row remembers the sequence number of the last event it
 * applied, so that an event delivered again changes nothing.
 */
@Component
@ProcessingGroup(ReservationProjection.PROCESSING_GROUP)
class ReservationProjection {

  static final String PROCESSING_GROUP = "reservation-projection";

  private final ReservationRows rows;

  ReservationProjection(ReservationRows rows) {
    this.rows = rows;
  }

  @EventHandler
  void on(StockReserved event, @SequenceNumber long sequence, @Timestamp Instant at) {
    rows.create(
        event.reservationId(),
        event.userId(),
        ReservationRows.Status.RESERVED,
        event.lines(),
        event.reservedAt(),
        event.expiresAt(),
        null,
        null,
        sequence,
        at);
  }

  @EventHandler
  void on(ReservationAbandoned event, @SequenceNumber long sequence, @Timestamp Instant at) {
    rows.create(
        event.reservationId(),
        event.userId(),
        ReservationRows.Status.ABANDONED,
        event.lines(),
        event.abandonedAt(),
        null,
        event.abandonedAt(),
        ReservationAbandoned.REASON,
        sequence,
        at);
  }

  @EventHandler
  void on(ReservationExtended event, @SequenceNumber long sequence, @Timestamp Instant at) {
    rows.extend(event.reservationId(), event.expiresAt(), sequence, at);
  }

  @EventHandler
  void on(StockConfirmed event, @SequenceNumber long sequence, @Timestamp Instant at) {
    rows.confirm(event.reservationId(), event.confirmedAt(), event.lines(), sequence, at);
  }

  @EventHandler
  void on(StockReleased event, @SequenceNumber long sequence, @Timestamp Instant at) {
    rows.release(event.reservationId(), event.releasedAt(), event.reason(), sequence, at);
  }

  @ResetHandler
  void reset() {
    rows.deleteAll();
  }

  @QueryHandler
  Optional<ReservationView> handle(FindReservationQuery query) {
    return rows.find(query.reservationId());
  }
}
