package io.stockade.query.reconciliation;

import io.stockade.platform.openapi.Problem;
import io.stockade.platform.web.Identifier;
import io.stockade.platform.web.ProblemException;
import io.stockade.query.QueryProblems;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Reconciliation on demand: the latest check's report, or the next one's when it is older than
 * {@code max-age} (see {@link ReconciliationChecks}); {@code ?full=true} for a full check's.
 */
@RestController
@RequestMapping("/api/reconciliation")
class ReconciliationController {

  private final ReconciliationChecks checks;

  ReconciliationController(ReconciliationChecks checks) {
    this.checks = checks;
  }

  @GetMapping
  @Problem(
      status = 503,
      codes = {QueryProblems.RECONCILIATION_RUNNING, QueryProblems.READ_MODEL_UNAVAILABLE})
  ReconciliationReport report(@RequestParam(defaultValue = "false") boolean full) {
    return checks
        .report(false, full)
        .narrowed(sku -> true, mismatch -> true, Reconciliation.MISMATCHES_LISTED);
  }

  /** The same report, narrowed to one SKU and the reservation mismatches naming it. */
  @GetMapping("/skus/{skuId}")
  @Problem(status = 404, codes = QueryProblems.UNKNOWN_SKU)
  @Problem(
      status = 503,
      codes = {QueryProblems.RECONCILIATION_RUNNING, QueryProblems.READ_MODEL_UNAVAILABLE})
  ReconciliationReport sku(
      @PathVariable @Identifier String skuId, @RequestParam(defaultValue = "false") boolean full) {
    ReconciliationReport report = narrowed(checks.report(false, full), skuId);
    if (report.skus().isEmpty()) {
      // Registered since the latest check, perhaps: a 404 only from a check begun after the
      // request.
      report = narrowed(checks.report(true, full), skuId);
    }
    if (report.skus().isEmpty()) {
      throw new ProblemException(
          HttpStatus.NOT_FOUND,
          QueryProblems.UNKNOWN_SKU,
          "Unknown SKU",
          "SKU "
              + skuId
              + " is neither in the gate, nor in the event store, nor in the read model.",
          Map.of("skuId", skuId));
    }
    return report;
  }

  private static ReconciliationReport narrowed(ReconciliationReport report, String skuId) {
    return report.narrowed(
        sku -> sku.skuId().equals(skuId),
        mismatch -> mismatch.skuIds().contains(skuId),
        Reconciliation.MISMATCHES_LISTED);
  }
}
