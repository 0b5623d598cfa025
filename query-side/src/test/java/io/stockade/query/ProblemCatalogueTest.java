package io.stockade.query;

import io.stockade.platform.testing.ProblemCatalogue;
import org.junit.jupiter.api.Test;

/**
 * The query side's problem codes are written once, in {@link QueryProblems} (and the platform's
 * shared ones in {@code ProblemCodes}): no literal elsewhere, every {@code @Problem} code
 * catalogued, every catalogued code in {@code docs/api.md}.
 */
class ProblemCatalogueTest {

  @Test
  void everyProblemCodeIsWrittenOnceInTheCatalogueAndDocumented() {
    new ProblemCatalogue(QueryProblems.class, "io.stockade.query").verify();
  }
}
