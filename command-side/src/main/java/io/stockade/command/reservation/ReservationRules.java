package io.stockade.command.reservation;

import io.stockade.platform.web.ProblemResponses;
import io.stockade.platform.web.ProblemResponses.FieldProblem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Limits of one reservation request ({@code stockade.reservation.*}).
 *
 * @param maxLines lines per reservation, after merging lines of the same SKU
 * @param maxQuantity units per line, after merging
 * @param defaultHold how long an unconfirmed reservation holds its units when the request does not
 *     say
 * @param maxHold the longest hold a request may ask for
 */
@ConfigurationProperties("stockade.reservation")
record ReservationRules(
    @DefaultValue("100") int maxLines,
    @DefaultValue("1000000") int maxQuantity,
    @DefaultValue("900s") Duration defaultHold,
    @DefaultValue("24h") Duration maxHold) {

  /**
   * The limits these lines (merged) and hold break, each as the field it names; none when they keep
   * them. What Bean Validation cannot check: the limits are settings, and apply after merging.
   *
   * @param holdSeconds the hold asked for, or null for the default
   */
  List<FieldProblem> broken(List<ReserveRequest.MergedLine> merged, Long holdSeconds) {
    List<FieldProblem> broken = new ArrayList<>();
    if (merged.size() > maxLines) {
      broken.add(new FieldProblem("lines", "at most " + maxLines + " SKUs per reservation"));
    }
    broken.addAll(quantities(merged));
    if (holdSeconds != null && holdSeconds > maxHold.toSeconds()) {
      broken.add(new FieldProblem("holdSeconds", "at most " + maxHold.toSeconds() + " seconds"));
    }
    return broken;
  }

  /** The merged lines over the units a line may have. */
  List<FieldProblem> quantities(List<ReserveRequest.MergedLine> merged) {
    List<FieldProblem> broken = new ArrayList<>();
    for (int i = 0; i < merged.size(); i++) {
      if (merged.get(i).quantity() > maxQuantity) {
        broken.add(
            new FieldProblem(
                "lines[" + i + "].quantity",
                "at most " + maxQuantity + " units per SKU (after merging lines)"));
      }
    }
    return broken;
  }

  /** Answers 400 with every limit broken, if any. */
  void check(List<ReserveRequest.MergedLine> merged, Long holdSeconds) {
    refuse(broken(merged, holdSeconds));
  }

  /** Answers 400 with these problems, if any. */
  static void refuse(List<FieldProblem> broken) {
    if (!broken.isEmpty()) {
      throw ProblemResponses.invalidRequest(broken);
    }
  }
}
