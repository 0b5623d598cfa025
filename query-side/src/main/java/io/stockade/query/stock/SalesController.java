package io.stockade.query.stock;

import io.stockade.platform.openapi.Problem;
import io.stockade.query.QueryProblems;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Every known SKU with its stock and its sale, paged, the busiest first: what an operator sees
 * first of a running sale (the dashboard's first screen). Busiest: the most events applied to the
 * SKU (registrations, sale changes, adjustments, reservations, confirmations, releases).
 */
@RestController
class SalesController {

  /** One page of SKUs, and how many there are in all. */
  record SalesPage(List<StockView> skus, int page, int size, long totalEntries) {}

  private final StockLevels stockLevels;
  private final QueueLengths queues;

  SalesController(StockLevels stockLevels, QueueLengths queues) {
    this.stockLevels = stockLevels;
    this.queues = queues;
  }

  @GetMapping("/api/sales")
  @Problem(status = 503, codes = QueryProblems.READ_MODEL_UNAVAILABLE)
  SalesPage sales(
      @RequestParam(defaultValue = "0") @Min(0) @Max(1_000_000) int page,
      @RequestParam(defaultValue = "50") @Min(1) @Max(500) int size) {
    return new SalesPage(
        queues.views(stockLevels.busiest(page, size)), page, size, stockLevels.known());
  }
}
