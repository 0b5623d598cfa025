package io.stockade.query.decision;

import io.stockade.query.decision.DecisionRates.Rates;
import io.swagger.v3.oas.annotations.Parameter;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The gate's admissions and refusals per second over the last minutes (see {@link DecisionRates}).
 */
@RestController
class DecisionRateController {

  private final DecisionRates rates;

  DecisionRateController(DecisionRates rates) {
    this.rates = rates;
  }

  @GetMapping("/api/decisions/rate")
  Rates rate(
      @Parameter(description = "how many minutes back from the current second, 1 to 60")
          @RequestParam(defaultValue = "5")
          @Min(1)
          @Max(60)
          int minutes) {
    return rates.last(minutes);
  }
}
