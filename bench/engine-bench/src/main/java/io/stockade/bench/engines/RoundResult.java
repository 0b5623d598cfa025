package io.stockade.bench.engines;

/**
 * What one round measured and what the store said afterwards.
 *
 * @param throughput attempts per second, over the wall time from the start signal to the last
 *     thread done
 * @param admitted attempts the engine answered "admitted" (client side)
 * @param errors attempts that failed (neither admitted nor refused)
 * @param firstError the first failure, or null
 * @param taken units taken as the store says after the round
 */
record RoundResult(
    double throughput,
    double p50Micros,
    double p99Micros,
    double seconds,
    long admitted,
    long errors,
    String firstError,
    long taken,
    long stock) {

  /** Units promised beyond the stock, by the callers' count or by the store's. */
  long oversold() {
    return Math.max(0, Math.max(admitted, taken) - stock);
  }

  /**
   * Why this round is wrong: oversold, not sold out, failed attempts, or callers and store
   * disagree; null when it is right.
   */
  String failure() {
    if (oversold() > 0) {
      return oversold() + " units oversold";
    }
    if (taken != stock) {
      return "the store shows " + taken + " units taken, not the stock of " + stock;
    }
    if (errors > 0) {
      return errors + " attempts failed, the first: " + firstError;
    }
    if (admitted != taken) {
      return admitted + " admissions answered, but the store shows " + taken + " units taken";
    }
    return null;
  }
}
