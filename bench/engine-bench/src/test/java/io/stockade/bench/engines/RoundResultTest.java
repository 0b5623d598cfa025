package io.stockade.bench.engines;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RoundResultTest {

  private static RoundResult round(double throughput, long admitted, long errors, long taken) {
    return new RoundResult(throughput, 100, 900, 1.5, admitted, errors, null, taken, 500);
  }

  @Test
  void passesWhenCallersAndStoreAgreeOnExactlyTheStock() {
    assertThat(round(1000, 500, 0, 500).failure()).isNull();
    assertThat(round(1000, 500, 0, 500).oversold()).isZero();
  }

  @Test
  void countsOversoldUnitsByTheCallersCount() {
    RoundResult lostUpdates = round(1000, 503, 0, 500);

    assertThat(lostUpdates.oversold()).isEqualTo(3);
    assertThat(lostUpdates.failure()).isEqualTo("3 units oversold");
  }

  @Test
  void countsOversoldUnitsByTheStoresCount() {
    assertThat(round(1000, 500, 0, 502).oversold()).isEqualTo(2);
  }

  @Test
  void failsWhenTheStoreWasNotSoldOut() {
    assertThat(round(1000, 499, 0, 499).failure())
        .isEqualTo("the store shows 499 units taken, not the stock of 500");
  }

  @Test
  void failsWhenAttemptsFailed() {
    assertThat(round(1000, 500, 2, 500).failure()).startsWith("2 attempts failed");
  }

  @Test
  void failsWhenCallersAndStoreDisagree() {
    assertThat(round(1000, 499, 0, 500).failure())
        .isEqualTo("499 admissions answered, but the store shows 500 units taken");
  }

  @Test
  void reportsTheRoundOfMedianThroughput() {
    EngineResult result =
        new EngineResult(
            "gate",
            "the gate",
            List.of(round(3000, 500, 0, 500), round(1000, 500, 0, 500), round(2000, 500, 0, 500)),
            List.of());

    assertThat(result.median().throughput()).isEqualTo(2000);
    assertThat(result.resultLine()).isEqualTo("RESULT gate 2000 100 900 500 0");
  }
}
