package io.stockade.command.admission.rebuild;

import java.util.Map;
import java.util.Optional;
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
 *
 * <p>While the gate is closed, {@code reason} says why this instance could not open it the last
 * time it tried (a failed rebuild with its cause, a Redis that may evict keys, another instance
 * rebuilding, Redis unreachable), and {@code failedRebuilds} how many rebuilds failed in a row. On
 * the instance that rebuilds it, {@code rebuild} tells how far: {@code phase} (CLEARING, READING,
 * WRITING), {@code position} and {@code head} (global indices of the event store) and {@code
 * percent}.
 */
@Component("gate")
class GateHealth implements HealthIndicator {

  static final String OPEN = "OPEN";
  static final String REBUILDING = "REBUILDING";
  static final String CLOSED = "CLOSED";

  private final GateKeeper keeper;
  private final GateEpochs epochs;
  private final GateRebuild rebuild;

  GateHealth(GateKeeper keeper, GateEpochs epochs, GateRebuild rebuild) {
    this.keeper = keeper;
    this.epochs = epochs;
    this.rebuild = rebuild;
  }

  @Override
  public Health health() {
    OptionalLong open = keeper.checkedEpoch();
    if (open.isPresent()) {
      return Health.up().withDetail("state", OPEN).withDetail("epoch", open.getAsLong()).build();
    }
    Health.Builder health;
    try {
      GateEpochs.Row row = epochs.read();
      health =
          GateEpochs.REBUILDING.equals(row.state())
              ? Health.outOfService().withDetail("state", REBUILDING)
              : Health.down().withDetail("state", CLOSED);
      health.withDetail("epoch", row.epoch());
    } catch (DataAccessException e) {
      health = Health.down().withDetail("state", CLOSED);
    }
    String reason = keeper.closedBecause();
    if (reason != null) {
      health.withDetail("reason", reason);
    }
    if (keeper.failedRebuilds() > 0) {
      health.withDetail("failedRebuilds", keeper.failedRebuilds());
    }
    Optional<GateRebuild.Progress> progress = rebuild.progress();
    if (progress.isPresent()) {
      GateRebuild.Progress now = progress.get();
      health.withDetail(
          "rebuild",
          Map.of(
              "epoch", now.epoch(),
              "phase", now.phase(),
              "position", now.position(),
              "head", now.head(),
              "percent", now.percent()));
    }
    return health.build();
  }
}
