package io.stockade.query.reservation;

import io.stockade.api.draw.ReservationDrawn;
import io.stockade.api.draw.ReservationQueued;
import io.stockade.api.reservation.FindReservationQuery;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationView;
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
  private final ReservationViews views;

  ReservationProjection(ReservationRows rows, ReservationViews views) {
    this.rows = rows;
    this.views = views;
  }

  @EventHandler
  void on(ReservationEvent event, @SequenceNumber long sequence, @Timestamp Instant at) {
    ReservationChanges.apply(event, sequence, at, rows);
  }

  /** A queued reservation's stream ({@code queued:<id>}): it arrived in a pre-queue. */
  @EventHandler
  void on(ReservationQueued event, @Timestamp Instant at) {
    ReservationChanges.queued(event, at, rows);
  }

  /** The draw decided a queued reservation. */
  @EventHandler
  void on(ReservationDrawn event, @Timestamp Instant at) {
    ReservationChanges.drawn(event, at, rows);
  }

  @ResetHandler
  void reset() {
    rows.deleteAll();
  }

  @QueryHandler
  Optional<ReservationView> handle(FindReservationQuery query) {
    return views.find(query.reservationId());
  }
}
