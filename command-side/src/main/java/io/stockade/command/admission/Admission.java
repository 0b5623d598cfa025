package io.stockade.command.admission;

import io.stockade.api.reservation.ReservationLine;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What the gate is asked to admit.
 *
 * @param lines merged lines, one per SKU
 * @param now the admission instant proposed by the caller; a duplicate answers with the first one
 * @param buckets the request's rate limits, taken by the gate in the same step: one token from each
 *     unless one is short ({@link AdmissionDecision.RateLimited}); none to take none
 */
public record Admission(
    String reservationId,
    String userId,
    List<ReservationLine> lines,
    Duration hold,
    Instant now,
    List<TokenBucket> buckets) {

  public Admission {
    lines = List.copyOf(lines);
    buckets = List.copyOf(buckets);
  }

  /** An admission that takes no token. */
  public Admission(
      String reservationId,
      String userId,
      List<ReservationLine> lines,
      Duration hold,
      Instant now) {
    this(reservationId, userId, lines, hold, now, List.of());
  }

  /** The content a retry must repeat exactly: user, hold and lines, independent of line order. */
  public String fingerprint() {
    return userId
        + "|"
        + hold.toMillis()
        + "|"
        + lines.stream()
            .sorted(Comparator.comparing(ReservationLine::skuId))
            .map(line -> line.skuId() + "=" + line.quantity())
            .collect(Collectors.joining(","));
  }
}
