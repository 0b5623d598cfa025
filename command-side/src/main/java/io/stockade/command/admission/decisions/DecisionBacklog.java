package io.stockade.command.admission.decisions;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateLayout.Partition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * The decisions still waiting in Redis, as gauges: the entries of every partition's decision stream
 * that {@link DecisionDrain} has not moved yet, and the refusals counted in the gaps still open.
 */
@Component
@ConditionalOnProperty(
    name = "stockade.decisions.enabled",
    havingValue = "true",
    matchIfMissing = true)
class DecisionBacklog {

  private final StringRedisTemplate redis;
  private final GateLayout layout;

  DecisionBacklog(StringRedisTemplate redis, GateLayout layout, MeterRegistry meters) {
    this.redis = redis;
    this.layout = layout;
    Gauge.builder("stockade.decisions.backlog", this, DecisionBacklog::backlog)
        .description("Gate decisions waiting in Redis to be moved to the database, all partitions")
        .register(meters);
    Gauge.builder("stockade.decisions.dropping", this, DecisionBacklog::dropping)
        .description(
            "Refusals dropped in the gaps still open in Redis (decision streams that held their"
                + " whole backlog), all partitions")
        .register(meters);
  }

  /** Entries waiting in every partition's stream; NaN while Redis does not answer. */
  double backlog() {
    try {
      long waiting = 0;
      for (Partition partition : layout.partitions()) {
        Long length = redis.opsForStream().size(partition.decisions());
        waiting += length == null ? 0 : length;
      }
      return waiting;
    } catch (DataAccessException e) {
      return Double.NaN;
    }
  }

  /**
   * Refusals counted in the gaps still open, every partition's; NaN while Redis does not answer.
   */
  double dropping() {
    try {
      long count = 0;
      for (Partition partition : layout.partitions()) {
        Object open = redis.opsForHash().get(partition.dropped(), "count");
        count += open == null ? 0 : Long.parseLong(String.valueOf(open));
      }
      return count;
    } catch (DataAccessException e) {
      return Double.NaN;
    }
  }
}
