package io.stockade.query.reconciliation;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What the reconciliation remembers of one kind of difference (a SKU's gate side, its read model
 * side, a reservation's mismatch): per id, the difference seen last and since when it is the same.
 * Kept in memory, so a restart starts the clock again.
 */
final class Sightings {

  /** A difference, since when it is the same, and whether it has outlived the bound. */
  record Seen(Object difference, Instant since, boolean drift) {}

  private final Map<String, Seen> seen = new HashMap<>();
  private final Duration bound;
  private final Runnable onDrift;

  /**
   * @param onDrift run when a difference first outlives {@code bound}
   */
  Sightings(Duration bound, Runnable onDrift) {
    this.bound = bound;
    this.onDrift = onDrift;
  }

  /**
   * Remembers the difference of {@code id}: since when it is the same, and whether it has outlived
   * the bound (reported to {@code onDrift} the first time).
   */
  Seen judge(String id, Object difference, Instant now) {
    Seen before = seen.get(id);
    Seen judged =
        before != null && before.difference().equals(difference)
            ? before
            : new Seen(difference, now, false);
    if (!judged.drift() && Duration.between(judged.since(), now).compareTo(bound) > 0) {
      judged = new Seen(difference, judged.since(), true);
      onDrift.run();
    }
    seen.put(id, judged);
    return judged;
  }

  /** Forgets the difference of {@code id}: there is none now. */
  void forget(String id) {
    seen.remove(id);
  }

  /** Forgets the differences of every id but these. */
  void retainAll(Set<String> ids) {
    seen.keySet().retainAll(ids);
  }

  /** The ids with a difference remembered. */
  Set<String> ids() {
    return seen.keySet();
  }
}
