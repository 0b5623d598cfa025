package io.stockade.command;

import io.stockade.platform.testing.ProblemCatalogue;
import org.junit.jupiter.api.Test;

/**
 * The command side's problem codes are written once, in {@link CommandProblems} (and the platform's
 * shared ones in {@code ProblemCodes}): no literal elsewhere, every {@code @Problem} code
 * catalogued, every catalogued code in {@code docs/api.md}.
 */
class ProblemCatalogueTest {

  @Test
  void everyProblemCodeIsWrittenOnceInTheCatalogueAndDocumented() {
    new ProblemCatalogue(CommandProblems.class, "io.stockade.command").verify();
  }
}
