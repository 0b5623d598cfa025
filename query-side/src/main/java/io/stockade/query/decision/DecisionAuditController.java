package io.stockade.query.decision;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.stockade.platform.openapi.Problem;
import io.stockade.platform.web.Identifier;
import io.stockade.platform.web.ProblemException;
import io.stockade.platform.web.ProblemResponses;
import io.stockade.platform.web.ProblemResponses.FieldProblem;
import io.stockade.query.QueryProblems;
import io.stockade.query.decision.DecisionPages.Window;
import io.stockade.query.decision.GateDecisions.SkuRow;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The gate's decisions, admitted or refused, as the command side recorded them ({@code
 * gate_decision}): a SKU's, oldest first in the order the gate decided them, and a user's across
 * every SKU. Not a read model: nothing here follows the event stream.
 */
@RestController
class DecisionAuditController {

  /** One page of a SKU's decisions in the window asked for, and how many the window holds. */
  record SkuDecisions(
      String skuId,
      List<SkuDecision> decisions,
      long page,
      int size,
      long total,
      @Schema(
              description =
                  "With around=sellout only: the position (from 0, within from/to) of the first"
                      + " decision that left no unit available, null when there is none")
          @JsonInclude(JsonInclude.Include.NON_NULL)
          Optional<Long> sellout) {}

  private static final String OUTCOME =
      "REFUSALS_DROPPED: a gap in the log, where refusals were counted but not logged one by one"
          + " (the command side's decision backlog was full); quantity is the number of this"
          + " user's refusals of this SKU dropped there";

  private static final String AVAILABLE_AFTER =
      "the SKU's (its bucket's) available units right after the decision; null for an admitted"
          + " decision Redis lost, restored from its event, and for a gap";

  /**
   * One decision of the gate for one SKU. {@code bucket}: the SKU's bucket (its gate partition); a
   * SKU in buckets has one order per bucket, merged here by time.
   */
  record SkuDecision(
      long sequence,
      Instant at,
      @Schema(nullable = true, description = "null for a gap (REFUSALS_DROPPED)")
          String reservationId,
      String userId,
      int quantity,
      @Schema(
              allowableValues = {
                "ADMITTED",
                "INSUFFICIENT_STOCK",
                "PURCHASE_LIMIT_EXCEEDED",
                "WITHDRAWN",
                "REFUSALS_DROPPED"
              },
              description = OUTCOME)
          String outcome,
      @Schema(nullable = true, description = AVAILABLE_AFTER) Long availableAfter,
      int bucket) {

    static SkuDecision of(SkuRow row) {
      return new SkuDecision(
          row.sequence(),
          Instant.ofEpochMilli(row.decidedAt()),
          row.reservationId().isEmpty() ? null : row.reservationId(),
          row.userId(),
          row.quantity(),
          row.outcome(),
          row.availableAfter(),
          row.partition());
    }
  }

  /** One page of a user's decisions, every SKU's, and how many the window holds. */
  record UserDecisions(
      String userId, List<UserDecision> decisions, long page, int size, long total) {}

  /** A decision of the user's, with its SKU. */
  record UserDecision(
      String skuId,
      long sequence,
      Instant at,
      @Schema(nullable = true, description = "null for a gap (REFUSALS_DROPPED)")
          String reservationId,
      String userId,
      int quantity,
      @Schema(
              allowableValues = {
                "ADMITTED",
                "INSUFFICIENT_STOCK",
                "PURCHASE_LIMIT_EXCEEDED",
                "WITHDRAWN",
                "REFUSALS_DROPPED"
              },
              description = OUTCOME)
          String outcome,
      @Schema(nullable = true, description = AVAILABLE_AFTER) Long availableAfter,
      int bucket) {}

  private final DecisionPages pages;

  DecisionAuditController(DecisionPages pages) {
    this.pages = pages;
  }

  /**
   * Every attempt the gate decided for the SKU, oldest first: by time, then in the gate's order
   * within a millisecond; the buckets of a SKU in buckets merged by time.
   */
  @GetMapping("/api/audit/skus/{skuId}/decisions")
  @Problem(status = 404, codes = QueryProblems.UNKNOWN_SKU)
  @Problem(status = 503, codes = QueryProblems.READ_MODEL_UNAVAILABLE)
  SkuDecisions ofSku(
      @PathVariable @Identifier String skuId,
      @RequestParam(required = false) String from,
      @RequestParam(required = false) String to,
      @RequestParam(required = false) @Min(0) Integer page,
      @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int size,
      @Parameter(
              description =
                  "sellout: the page holding the first decision that left no unit available")
          @RequestParam(required = false)
          String around) {
    Window window = window(from, to, size);
    boolean aroundSellout = around != null;
    if (aroundSellout && !around.equals("sellout")) {
      throw invalid(new FieldProblem("around", "must be sellout"));
    }
    if (aroundSellout && page != null) {
      throw invalid(new FieldProblem("page", "must not be given with around"));
    }
    long asked = page == null ? 0 : page;
    DecisionPages.SkuPage found =
        pages
            .ofSku(skuId, window, asked, aroundSellout)
            .orElseThrow(
                () ->
                    new ProblemException(
                        HttpStatus.NOT_FOUND,
                        QueryProblems.UNKNOWN_SKU,
                        "Unknown SKU",
                        "SKU "
                            + skuId
                            + " has no decision of the gate and is not in the read model.",
                        Map.of("skuId", skuId)));
    return new SkuDecisions(
        skuId,
        found.rows().stream().map(SkuDecision::of).toList(),
        found.page(),
        size,
        found.total(),
        found.sellout());
  }

  /** Every attempt of the user's that the gate decided, every SKU's, oldest first. */
  @GetMapping("/api/audit/users/{userId}/decisions")
  UserDecisions ofUser(
      @PathVariable @Identifier String userId,
      @RequestParam(required = false) String from,
      @RequestParam(required = false) String to,
      @RequestParam(defaultValue = "0") @Min(0) int page,
      @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int size) {
    DecisionPages.UserPage found = pages.ofUser(userId, window(from, to, size), page);
    return new UserDecisions(
        userId,
        found.rows().stream()
            .map(
                row -> {
                  SkuDecision decision = SkuDecision.of(row.row());
                  return new UserDecision(
                      row.skuId(),
                      decision.sequence(),
                      decision.at(),
                      decision.reservationId(),
                      decision.userId(),
                      decision.quantity(),
                      decision.outcome(),
                      decision.availableAfter(),
                      decision.bucket());
                })
            .toList(),
        page,
        size,
        found.total());
  }

  /** The decision times {@code [from, to)} as milliseconds, no bound for a parameter not given. */
  private static Window window(String from, String to, int size) {
    List<FieldProblem> errors = new ArrayList<>();
    Instant start = instant("from", from, errors);
    Instant end = instant("to", to, errors);
    if (start != null && end != null && start.isAfter(end)) {
      errors.add(new FieldProblem("from", "must not be after to"));
    }
    if (!errors.isEmpty()) {
      throw invalid(errors.toArray(FieldProblem[]::new));
    }
    return new Window(
        start == null ? Long.MIN_VALUE : millisFrom(start),
        end == null ? Long.MAX_VALUE : millisFrom(end),
        size);
  }

  private static Instant instant(String name, String text, List<FieldProblem> errors) {
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      errors.add(
          new FieldProblem(name, "must be an ISO-8601 UTC instant, such as 2026-11-30T10:00:00Z"));
      return null;
    }
  }

  /**
   * The first whole millisecond at or after an instant: a decision's time is a millisecond, and it
   * lies at or after the instant exactly when that millisecond does. Beyond the milliseconds a long
   * holds, no bound.
   */
  static long millisFrom(Instant instant) {
    try {
      return Math.addExact(
          Math.multiplyExact(instant.getEpochSecond(), 1000L),
          (instant.getNano() + 999_999) / 1_000_000);
    } catch (ArithmeticException beyond) {
      return instant.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  private static ProblemException invalid(FieldProblem... errors) {
    return ProblemResponses.invalidRequest(List.of(errors));
  }
}
