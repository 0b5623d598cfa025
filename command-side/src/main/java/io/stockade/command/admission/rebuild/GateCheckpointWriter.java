package io.stockade.command.admission.rebuild;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.stockade.api.StreamFold;
import io.stockade.command.admission.redis.GateProperties;
import io.stockade.platform.eventstore.EventTableFold;
import io.stockade.platform.eventstore.SettledHorizon;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Takes the gate's checkpoints ({@link GateCheckpoints}): when one is due (by events or by time,
 * {@link GateCheckpointProperties}), one instance at a time (a lock of the database server, held by
 * a connection: an instance that dies lets it go) folds the events after the newest checkpoint up
 * to the event table's settled horizon into its image and stores it, then prunes the old ones.
 *
 * <p>It reads the record only, never Redis: a checkpoint is what a rebuild would fold from the same
 * events, so a rebuild from it and the events after its position writes the gate a rebuild from the
 * whole record writes. The position is a settled horizon ({@link SettledHorizon}): every index up
 * to it is an event stored or a hole no transaction can fill, so no event committed late below it
 * is missed.
 */
@Component
class GateCheckpointWriter implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(GateCheckpointWriter.class);

  /**
   * The database server's lock that one instance at a time holds while it takes a checkpoint,
   * followed by the MD5 of the database's name (the server's locks are the server's, not the
   * database's).
   */
  static final String LOCK = "stockade.gate-checkpoint.";

  private final GateCheckpoints checkpoints;
  private final EventTableFold events;
  private final JdbcTemplate jdbc;
  private final GateCheckpointProperties properties;
  private final Duration retention;
  private final Clock clock;
  private final SettledHorizon horizon;

  /** The newest checkpoint as this instance last read it; null for none. */
  private volatile GateCheckpoints.Checkpoint newest;

  GateCheckpointWriter(
      GateCheckpoints checkpoints,
      EventTableFold events,
      JdbcTemplate jdbc,
      GateCheckpointProperties properties,
      GateProperties gate,
      Clock clock,
      MeterRegistry meters) {
    this.checkpoints = checkpoints;
    this.events = events;
    this.jdbc = jdbc;
    this.properties = properties;
    this.retention = gate.intentRetention();
    this.clock = clock;
    this.horizon =
        new SettledHorizon(
            jdbc, "The gate's checkpoints", EventTableFold.GAP_TIMEOUT, Duration.ofMillis(200));
    Gauge.builder("stockade.gate.checkpoint.age", this, GateCheckpointWriter::age)
        .description(
            "Seconds since the newest checkpoint of the gate was taken, as this instance last"
                + " checked (NaN: none)")
        .baseUnit("seconds")
        .register(meters);
    Gauge.builder(
            "stockade.gate.checkpoint.position",
            this,
            writer -> writer.newest == null ? Double.NaN : writer.newest.position())
        .description("The global index the newest checkpoint of the gate is complete up to")
        .register(meters);
  }

  private double age() {
    GateCheckpoints.Checkpoint last = newest;
    return last == null
        ? Double.NaN
        : Duration.between(last.createdAt(), clock.instant()).toMillis() / 1000.0;
  }

  @Scheduled(
      fixedDelayString = "${stockade.gate.checkpoint.check-interval:30s}",
      initialDelayString = "${stockade.gate.checkpoint.check-interval:30s}")
  void check() {
    try {
      if (!properties.enabled()) {
        newest = checkpoints.latest().orElse(null);
        return;
      }
      checkpointIfDue();
    } catch (DataAccessException e) {
      log.warn(
          "Checkpoint of the gate not taken now; the next check tries again: {}", e.toString());
    }
  }

  /**
   * Takes a checkpoint if one is due and no other instance is taking one; answers it, or empty. The
   * settled position moves a round after it is asked for: a checkpoint due by the head of the store
   * is taken at a later check.
   */
  Optional<GateCheckpoints.Checkpoint> checkpointIfDue() {
    horizon.demand(events.head());
    long settled = horizon.settled();
    Optional<GateCheckpoints.Checkpoint> latest = checkpoints.latest();
    newest = latest.orElse(null);
    long last = latest.map(GateCheckpoints.Checkpoint::position).orElse(0L);
    boolean due =
        settled - last >= properties.everyEvents()
            || (settled > last
                && latest
                    .map(c -> !c.createdAt().plus(properties.every()).isAfter(clock.instant()))
                    .orElse(true));
    if (!due) {
      return Optional.empty();
    }
    return jdbc.execute(
        (ConnectionCallback<Optional<GateCheckpoints.Checkpoint>>)
            connection -> {
              if (!lock(connection, "select get_lock(concat(?, md5(database())), 0)")) {
                return Optional.empty();
              }
              try {
                // Another instance may have taken it since this one read the latest.
                if (checkpoints.latest().filter(c -> c.position() >= settled).isPresent()) {
                  return Optional.empty();
                }
                return Optional.of(take(settled));
              } finally {
                lock(connection, "select release_lock(concat(?, md5(database())))");
              }
            });
  }

  private static boolean lock(java.sql.Connection connection, String sql)
      throws java.sql.SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, LOCK);
      try (ResultSet rs = statement.executeQuery()) {
        return rs.next() && rs.getInt(1) == 1;
      }
    }
  }

  /** Folds the events after the newest valid checkpoint up to {@code position} and stores it. */
  private GateCheckpoints.Checkpoint take(long position) {
    long started = System.nanoTime();
    Instant now = clock.instant();
    GateCheckpoints.Start from = checkpoints.start(now, retention, position);
    GateImage image = from.image();
    events.foldPayloads(
        StreamFold.EVENTS, from.after(), position, event -> image.apply(event.payload()));
    Long epoch = jdbc.queryForObject("select epoch from gate_epoch where id = 1", Long.class);
    GateCheckpoints.Checkpoint written =
        checkpoints.write(image, position, epoch == null ? 0 : epoch);
    newest = written;
    int pruned = checkpoints.prune(properties.keep());
    log.info(
        "Checkpoint {} of the gate at position {}: {} events, {} SKUs, {} intents, {} bytes, from"
            + " {} in {} ms; {} old ones deleted",
        written.id(),
        position,
        image.events,
        image.skus.size(),
        image.intents.size(),
        written.bytes(),
        from.checkpoint() < 0 ? "the whole record" : "checkpoint " + from.checkpoint(),
        Duration.ofNanos(System.nanoTime() - started).toMillis(),
        pruned);
    return written;
  }

  @Override
  public void destroy() {
    horizon.destroy();
  }
}
