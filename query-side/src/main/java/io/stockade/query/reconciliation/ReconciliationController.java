package io.stockade.query.reconciliation;

import io.stockade.platform.openapi.Problem;
import io.stockade.platform.web.Identifier;
import io.stockade.platform.web.ProblemException;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Reconciliation on demand: a check runs for each request (see {@link Reconciliation}). */
@RestController
@RequestMapping("/api/reconciliation")
class ReconciliationController {

  private final Reconciliation reconciliation;

  ReconciliationController(Reconciliation reconciliation) {
    this.reconciliation = reconciliation;
  }

  @GetMapping
  @Problem(status = 503, codes = "replay-in-progress")
  ReconciliationReport report() {
    return reconciliation.check();
  }

  /** The same check, narrowed to one SKU and the reservation mismatches naming it. */
  @GetMapping("/skus/{skuId}")
  @Problem(status = 404, codes = "unknown-sku")
  @Problem(status = 503, codes = "replay-in-progress")
  ReconciliationReport sku(@PathVariable @Identifier String skuId) {
    ReconciliationReport report =
        reconciliation.check(mismatch -> mismatch.skuIds().contains(skuId));
    List<ReconciliationReport.Sku> skus =
        report.skus().stream().filter(sku -> sku.skuId().equals(skuId)).toList();
    if (skus.isEmpty()) {
      throw new ProblemException(
          HttpStatus.NOT_FOUND,
          "unknown-sku",
          "Unknown SKU",
          "SKU "
              + skuId
              + " is neither in the gate, nor in the event store, nor in the read model.",
          Map.of("skuId", skuId));
    }
    List<ReconciliationReport.ReservationMismatch> mismatches = report.reservationMismatches();
    String status = skus.get(0).status();
    return new ReconciliationReport(
        report.generatedAt(),
        report.gate(),
        report.events(),
        skus,
        mismatches,
        new ReconciliationReport.Summary(
            1,
            ReconciliationReport.CONSISTENT.equals(status) ? 1 : 0,
            ReconciliationReport.IN_FLIGHT.equals(status) ? 1 : 0,
            ReconciliationReport.DRIFT.equals(status) ? 1 : 0,
            report.summary().reservationMismatches(),
            mismatches.size()));
  }
}
