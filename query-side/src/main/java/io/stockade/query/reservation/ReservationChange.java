package io.stockade.query.reservation;

import static io.stockade.query.reservation.ReservationRow.CONFIRMED_AT;
import static io.stockade.query.reservation.ReservationRow.CONFIRMED_LINES;
import static io.stockade.query.reservation.ReservationRow.EXPIRES_AT;
import static io.stockade.query.reservation.ReservationRow.QUEUED_SEQUENCE;
import static io.stockade.query.reservation.ReservationRow.RELEASED_AT;
import static io.stockade.query.reservation.ReservationRow.RELEASE_REASON;
import static io.stockade.query.reservation.ReservationRow.STATUS;
import static io.stockade.query.reservation.ReservationRow.json;
import static io.stockade.query.reservation.ReservationRow.utc;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReleased;
import io.stockade.query.reservation.ReservationRow.Status;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;

/**
 * A change of the reservation read model waiting for its batch to be written, as the values of its
 * row: what each of {@link ReservationChanges.Target}'s calls asks for, built once for the live
 * writes ({@link ReservationRows}) and a replay's ({@link ReservationFold}).
 */
sealed interface ReservationChange {

  /** The columns of a new row, in the order of {@link ReservationRow#COLUMNS}. */
  record Creation(Object[] values) implements ReservationChange {

    String reservationId() {
      return (String) values[ReservationRow.RESERVATION_ID];
    }

    boolean queued() {
      return Status.QUEUED.name().equals(values[STATUS]);
    }
  }

  /** A change of an existing row: what it sets, at the event's sequence and time. */
  record Update(String reservationId, String what, long sequence, Columns set, LocalDateTime at)
      implements ReservationChange {

    /**
     * Its row of {@link ReservationFold}'s loaded updates, the {@code round}-th of its reservation.
     */
    Object[] foldRow(int round) {
      Object[] values = set.values();
      Object[] row = new Object[values.length + 4];
      row[0] = reservationId;
      row[1] = round;
      System.arraycopy(values, 0, row, 2, values.length);
      row[values.length + 2] = sequence;
      row[values.length + 3] = at;
      return row;
    }

    /** The arguments of {@link ReservationRows}' conditional UPDATE. */
    Object[] arguments() {
      Object[] values = set.values();
      Object[] arguments = Arrays.copyOf(values, values.length + 4);
      arguments[values.length] = sequence;
      arguments[values.length + 1] = at;
      arguments[values.length + 2] = reservationId;
      arguments[values.length + 3] = sequence;
      return arguments;
    }
  }

  /** A queued reservation joins the queue of each of these SKUs. */
  record Enqueue(String reservationId, List<String> skuIds) implements ReservationChange {}

  /** A queued reservation leaves the queues it is in. */
  record Dequeue(String reservationId) implements ReservationChange {}

  /**
   * A fold's QUEUED row, written in an earlier batch, whose admission's row replaces it: the QUEUED
   * row is deleted before the new row is loaded.
   */
  record Unqueued(String reservationId) implements ReservationChange {}

  /**
   * The columns an update sets: each that is not null replaces the row's ({@code coalesce} in the
   * UPDATE), in the order of {@link #SET_COLUMNS}.
   */
  record Columns(
      String status,
      LocalDateTime expiresAt,
      LocalDateTime confirmedAt,
      String confirmedLines,
      LocalDateTime releasedAt,
      String releaseReason) {

    /** Where the values of {@link Columns} go in a row of {@link ReservationRow#COLUMNS}. */
    static final int[] SET_COLUMNS = {
      STATUS, EXPIRES_AT, CONFIRMED_AT, CONFIRMED_LINES, RELEASED_AT, RELEASE_REASON
    };

    /** The names of {@link #SET_COLUMNS}, in their order. */
    static final List<String> NAMES =
        Arrays.stream(SET_COLUMNS).mapToObj(ReservationRow.COLUMN_NAMES::get).toList();

    Object[] values() {
      return new Object[] {
        status, expiresAt, confirmedAt, confirmedLines, releasedAt, releaseReason
      };
    }
  }

  static Creation creation(
      String reservationId,
      String userId,
      Status status,
      List<ReservationLine> lines,
      Instant createdAt,
      Instant expiresAt,
      Instant releasedAt,
      String releaseReason,
      long sequence,
      Instant at) {
    return new Creation(
        new Object[] {
          reservationId,
          userId,
          status.name(),
          json(lines),
          utc(createdAt),
          utc(expiresAt),
          null,
          null,
          utc(releasedAt),
          releaseReason,
          sequence,
          utc(at)
        });
  }

  static Update extension(String reservationId, Instant expiresAt, long sequence, Instant at) {
    return new Update(
        reservationId,
        "extension",
        sequence,
        new Columns(null, utc(expiresAt), null, null, null, null),
        utc(at));
  }

  static Update confirmation(
      String reservationId,
      Instant confirmedAt,
      List<ReservationLine> sold,
      long sequence,
      Instant at) {
    return new Update(
        reservationId,
        "confirmation",
        sequence,
        new Columns(Status.CONFIRMED.name(), null, utc(confirmedAt), json(sold), null, null),
        utc(at));
  }

  /**
   * A release with reason {@link StockReleased#NOT_CONFIRMED} gives back the units a partial
   * confirmation did not sell: the reservation stays CONFIRMED.
   */
  static Update releasing(
      String reservationId, Instant releasedAt, String reason, long sequence, Instant at) {
    String status = StockReleased.NOT_CONFIRMED.equals(reason) ? null : Status.RELEASED.name();
    return new Update(
        reservationId,
        "release",
        sequence,
        new Columns(status, null, null, null, utc(releasedAt), reason),
        utc(at));
  }

  static Creation queuedCreation(
      String reservationId,
      String userId,
      List<ReservationLine> lines,
      Instant queuedAt,
      Instant at) {
    return creation(
        reservationId,
        userId,
        Status.QUEUED,
        lines,
        queuedAt,
        null,
        null,
        null,
        QUEUED_SEQUENCE,
        at);
  }

  /**
   * A refusal applies to a QUEUED row only: as the first change after {@link
   * ReservationRow#QUEUED_SEQUENCE}. A refused reservation's own stream never begins.
   */
  static Update refusing(String reservationId, String refusal, Instant at) {
    return new Update(
        reservationId,
        "refusal",
        QUEUED_SEQUENCE + 1,
        new Columns(Status.REFUSED.name(), null, null, null, null, refusal),
        utc(at));
  }

  /** The queue of each SKU the lines name joins. */
  static Enqueue enqueue(String reservationId, List<ReservationLine> lines) {
    return new Enqueue(
        reservationId, lines.stream().map(ReservationLine::skuId).distinct().toList());
  }
}
