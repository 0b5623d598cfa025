package io.stockade.command.admission;

import io.stockade.api.reservation.ReservationLine;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

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
    return fingerprint(userId, hold.toMillis(), lines);
  }

  /**
   * The fingerprint of an admission of {@code lines} by {@code userId} for {@code holdMillis}:
   * "user|hold|sku=qty,sku=qty" with the lines in the order of their SKUs.
   */
  public static String fingerprint(String userId, long holdMillis, List<ReservationLine> lines) {
    List<ReservationLine> sorted = lines;
    if (lines.size() > 1) {
      sorted = new ArrayList<>(lines);
      sorted.sort(Comparator.comparing(ReservationLine::skuId));
    }
    StringBuilder fingerprint =
        new StringBuilder(userId.length() + 24 * sorted.size() + 24)
            .append(userId)
            .append('|')
            .append(holdMillis)
            .append('|');
    for (int i = 0; i < sorted.size(); i++) {
      ReservationLine line = sorted.get(i);
      if (i > 0) {
        fingerprint.append(',');
      }
      fingerprint.append(line.skuId()).append('=').append(line.quantity());
    }
    return fingerprint.toString();
  }
}
