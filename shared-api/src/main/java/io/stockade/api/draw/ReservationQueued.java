package io.stockade.api.draw;

import io.stockade.api.reservation.ReservationLine;
import java.time.Instant;
import java.util.List;

/**
 * A reservation arrived in a sale's pre-queue and waits for the draw at {@code opensAt}; it is
 * decided there exactly once, as if it arrived then. Stored as the only event of its own stream
 * ({@link #streamId}), beside the reservation's stream, which begins only when it is admitted.
 *
 * @param holdMillis how long the reservation is held once admitted, unless confirmed
 * @param drawCommitment the commitment of the draw's seed (hex SHA-256) answered with the 202
 */
public record ReservationQueued(
    String reservationId,
    String userId,
    List<ReservationLine> lines,
    long holdMillis,
    Instant opensAt,
    String drawCommitment,
    Instant queuedAt) {

  /** What begins the aggregate identifier of every queued reservation's stream. */
  public static final String STREAM_PREFIX = "queued:";

  /** The aggregate type its stream is stored with. */
  public static final String AGGREGATE_TYPE = "QueuedReservation";

  public ReservationQueued {
    lines = List.copyOf(lines);
  }

  public static String streamId(String reservationId) {
    return STREAM_PREFIX + reservationId;
  }
}
