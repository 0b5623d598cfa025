package io.stockade.command.admission;

import java.util.OptionalLong;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

/**
 * The gate's state as the health component {@code gate}: OPEN (up), REBUILDING (out of service: an
 * instance is rebuilding it from the event store) or CLOSED (down: Redis cannot be reached or
 * trusted yet, or the database cannot tell). The readiness group includes it, so that a load
 * balancer sends no reservation to an instance whose gate would refuse it with 503.
 */
@Component("gate")
class GateHealth implements HealthIndicator {

  static final String OPEN = "OPEN";
  static final String REBUILDING = "REBUILDING";
  static final String CLOSED = "CLOSED";

  private final GateKeeper keeper;
  private final GateEpochs epochs;

  GateHealth(GateKeeper keeper, GateEpochs epochs) {
    this.keeper = keeper;
    this.epochs = epochs;
  }

  @Override
  public Health health() {
    OptionalLong open = keeper.checkedEpoch();
    if (open.isPresent()) {
      return Health.up().withDetail("state", OPEN).withDetail("epoch", open.getAsLong()).build();
    }
    GateEpochs.Row row;
    try {
      row = epochs.read();
    } catch (DataAccessException e) {
      return Health.down().withDetail("state", CLOSED).build();
    }
    if (GateEpochs.REBUILDING.equals(row.state())) {
      return Health.outOfService()
          .withDetail("state", REBUILDING)
          .withDetail("epoch", row.epoch())
          .build();
    }
    return Health.down().withDetail("state", CLOSED).withDetail("epoch", row.epoch()).build();
  }
}
