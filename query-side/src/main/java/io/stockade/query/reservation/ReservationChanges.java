package io.stockade.query.reservation;

import io.stockade.api.draw.ReservationDrawn;
import io.stockade.api.draw.ReservationQueued;
import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import java.time.Instant;
import java.util.List;

/**
 * What one event changes in the reservation read model: the one fold of the reservation events,
 * which both {@link ReservationProjection} (event by event) and {@link ReservationReplayFold} (in
 * bulk) apply, each to its own {@link Target}.
 */
final class ReservationChanges implements ReservationEvent.Fold {

  /**
   * Where the change of an event goes: {@link ReservationRows}, or a replay's {@link
   * ReservationFold}.
   */
  interface Target {

    /** Creates the row of a reservation, unless it exists. */
    void create(
        String reservationId,
        String userId,
        ReservationRow.Status status,
        List<ReservationLine> lines,
        Instant createdAt,
        Instant expiresAt,
        Instant releasedAt,
        String releaseReason,
        long sequence,
        Instant at);

    void extend(String reservationId, Instant expiresAt, long sequence, Instant at);

    void confirm(
        String reservationId,
        Instant confirmedAt,
        List<ReservationLine> sold,
        long sequence,
        Instant at);

    void release(
        String reservationId, Instant releasedAt, String reason, long sequence, Instant at);

    /**
     * Creates the row of a reservation waiting in a pre-queue (QUEUED), unless it exists, and puts
     * it in the queue of each SKU its lines name.
     */
    void queue(
        String reservationId,
        String userId,
        List<ReservationLine> lines,
        Instant queuedAt,
        Instant at);

    /**
     * Takes a queued reservation out of its SKUs' queues; a refusal also makes a row still QUEUED
     * REFUSED, with the refusal as its reason. An admission changes the row through its {@code
     * StockReserved}, which may come before or after this.
     *
     * @param refusal the draw's refusal, or {@code null} when it admitted the reservation
     */
    void draw(String reservationId, String refusal, Instant at);
  }

  private final long sequence;
  private final Instant at;
  private final Target target;

  private ReservationChanges(long sequence, Instant at, Target target) {
    this.sequence = sequence;
    this.at = at;
    this.target = target;
  }

  /**
   * Hands {@code target} the change of the event with this payload, sequence number in its stream
   * and timestamp.
   */
  static void apply(ReservationEvent event, long sequence, Instant at, Target target) {
    event.applyTo(new ReservationChanges(sequence, at, target));
  }

  /** Hands {@code target} what a reservation arriving in a pre-queue changes. */
  static void queued(ReservationQueued event, Instant at, Target target) {
    target.queue(event.reservationId(), event.userId(), event.lines(), event.queuedAt(), at);
  }

  /** Hands {@code target} what the draw's decision of a queued reservation changes. */
  static void drawn(ReservationDrawn event, Instant at, Target target) {
    target.draw(event.reservationId(), event.admitted() ? null : event.outcome(), at);
  }

  @Override
  public void on(StockReserved event) {
    target.create(
        event.reservationId(),
        event.userId(),
        ReservationRow.Status.RESERVED,
        event.lines(),
        event.reservedAt(),
        event.expiresAt(),
        null,
        null,
        sequence,
        at);
  }

  @Override
  public void on(ReservationAbandoned event) {
    target.create(
        event.reservationId(),
        event.userId(),
        ReservationRow.Status.ABANDONED,
        event.lines(),
        event.abandonedAt(),
        null,
        event.abandonedAt(),
        ReservationAbandoned.REASON,
        sequence,
        at);
  }

  @Override
  public void on(ReservationExtended event) {
    target.extend(event.reservationId(), event.expiresAt(), sequence, at);
  }

  @Override
  public void on(StockConfirmed event) {
    target.confirm(event.reservationId(), event.confirmedAt(), event.lines(), sequence, at);
  }

  @Override
  public void on(StockReleased event) {
    target.release(event.reservationId(), event.releasedAt(), event.reason(), sequence, at);
  }
}
