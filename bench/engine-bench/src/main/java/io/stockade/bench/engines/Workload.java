package io.stockade.bench.engines;

/**
 * What every engine is given, identically: one hot SKU stocked with {@code stock} units per round,
 * {@code threads} workers sharing {@code attempts} attempts of one unit each (every attempt a
 * different user), {@code warmup} rounds not counted, then {@code rounds} measured rounds.
 */
record Workload(long stock, int threads, long attempts, int warmup, int rounds) {

  Workload {
    if (stock < 1 || threads < 1 || warmup < 0 || rounds < 1) {
      throw new IllegalArgumentException(
          "stock, threads and rounds must be at least 1, warm-up rounds at least 0");
    }
    if (attempts < 2 * stock) {
      throw new IllegalArgumentException(
          "attempts (" + attempts + ") must be at least twice the stock (" + stock + ")");
    }
  }

  @Override
  public String toString() {
    return String.format(
        "one hot SKU, stock %d per round, %d threads sharing %d attempts of 1 unit (a user each),"
            + " %d warm-up + %d measured round(s) per engine, the median round reported",
        stock, threads, attempts, warmup, rounds);
  }
}
