package io.stockade.query.decision;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The gate's admissions and refusals per second over the last minutes, from {@code gate_decision}
 * (one index range scan of {@code ix_gate_decision_time_outcome}, whatever the number of SKUs).
 * Counted as the log holds them: one per SKU line of a decision; an admission given back
 * (WITHDRAWN) is neither; a gap of dropped refusals (REFUSALS_DROPPED) counts its quantity, the
 * refusals it stands for. A second is that of the partition's Redis clock; the log receives the
 * decisions a drain interval or so after they are made, so the latest second may still grow.
 */
@Repository
class DecisionRates {

  /** The seconds {@code [from, to)}, every one of them, oldest first. */
  record Rates(Instant from, Instant to, List<Second> seconds) {}

  /** One second's admissions and refusals. */
  record Second(Instant at, long admitted, long refused) {}

  private final JdbcTemplate jdbc;
  private final Clock clock;

  DecisionRates(JdbcTemplate jdbc, Clock clock) {
    this.jdbc = jdbc;
    this.clock = clock;
  }

  /** The last {@code minutes} whole seconds before the current one. */
  Rates last(int minutes) {
    long to = clock.millis() / 1000 * 1000;
    long from = to - minutes * 60_000L;
    Map<Long, long[]> counted = new HashMap<>();
    jdbc.query(
        "select decided_at div 1000,"
            + " sum(case when outcome = 'ADMITTED' then 1 else 0 end),"
            + " sum(case when outcome = 'REFUSALS_DROPPED' then quantity"
            + " when outcome in ('ADMITTED', 'WITHDRAWN') then 0 else 1 end)"
            + " from gate_decision force index (ix_gate_decision_time_outcome)"
            + " where decided_at >= ? and decided_at < ? group by decided_at div 1000",
        rs -> {
          counted.put(rs.getLong(1), new long[] {rs.getLong(2), rs.getLong(3)});
        },
        from,
        to);
    List<Second> seconds = new ArrayList<>();
    for (long second = from / 1000; second < to / 1000; second++) {
      long[] both = counted.getOrDefault(second, new long[2]);
      seconds.add(new Second(Instant.ofEpochSecond(second), both[0], both[1]));
    }
    return new Rates(Instant.ofEpochMilli(from), Instant.ofEpochMilli(to), seconds);
  }
}
