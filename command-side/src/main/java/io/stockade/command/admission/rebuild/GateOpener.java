package io.stockade.command.admission.rebuild;

import io.stockade.command.admission.redis.GateConnection;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateProperties;
import io.stockade.command.admission.redis.GateServers;
import io.stockade.command.admission.redis.GateSession;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Opens a session of the gate on a connection of its own, for {@link GateKeeper}: on the gate Redis
 * holds when it can be trusted, else on one rebuilt from the event store.
 *
 * <p>The check: the gate's epoch in the database is OPEN, Redis's marker holds the same epoch, and
 * Redis is the very server process (run_id) the gate was built or last checked on. A restarted
 * server may have come back with an older copy of its data (AOF, RDB, a lagging replica), so it is
 * never trusted: the gate is rebuilt from the event store instead.
 *
 * <p>A rebuild is claimed in the database (next epoch, REBUILDING), which waits for admissions of
 * the old epoch still being stored and fences out later ones; the other instances wait until the
 * epoch is OPEN, then adopt it. A claim left by an instance that stopped answering is taken over
 * after {@code stockade.gate.rebuild-lease} without news, by the database's clock; the rebuilding
 * instance renews the lease as it works.
 *
 * <p>The gate never opens on a Redis that may evict keys ({@code maxmemory-policy} other than
 * {@code noeviction}, on any master); once this instance has seen one that may, not before the gate
 * has been rebuilt.
 */
class GateOpener {

  private static final Logger log = LoggerFactory.getLogger(GateOpener.class);

  /** The gate cannot open yet; the next attempt follows after the reopen interval. */
  private static final class NotYetException extends RuntimeException {

    NotYetException(String message) {
      super(message, null, false, false);
    }
  }

  /** The rebuild of an epoch failed; the next attempt follows after a back-off. */
  static final class RebuildFailedException extends RuntimeException {

    RebuildFailedException(long epoch, RuntimeException cause) {
      super("the rebuild of gate epoch " + epoch + " failed: " + describe(cause), cause);
    }
  }

  private final DataRedisConnectionDetails redis;
  private final DataRedisProperties redisProperties;
  private final GateEpochs epochs;
  private final GateRebuild rebuild;
  private final GateProperties properties;
  private final GateLayout layout;

  /** The instance, as it claims and renews rebuilds. */
  private final String me;

  /** What the rebuild that opened the gate left to do once it is open (opener thread only). */
  private Runnable afterOpen;

  /**
   * This instance saw a Redis that may evict keys: it may have evicted some of the gate's before it
   * was put right, so the gate is rebuilt before it opens again.
   */
  private volatile boolean evictionSeen;

  GateOpener(
      DataRedisConnectionDetails redis,
      DataRedisProperties redisProperties,
      GateEpochs epochs,
      GateRebuild rebuild,
      GateProperties properties,
      GateLayout layout,
      String me) {
    this.redis = redis;
    this.redisProperties = redisProperties;
    this.epochs = epochs;
    this.rebuild = rebuild;
    this.properties = properties;
    this.layout = layout;
    this.me = me;
  }

  /** This instance found a Redis that may evict keys: the gate is rebuilt before it opens again. */
  void evictionSeen() {
    evictionSeen = true;
  }

  /**
   * What the rebuild that opened the gate left to do once it is open, or null; taken once (opener
   * thread only).
   */
  Runnable takeAfterOpen() {
    Runnable then = afterOpen;
    afterOpen = null;
    return then;
  }

  /**
   * Opens a session: on a new connection, the gate Redis holds if it can be trusted, else the gate
   * rebuilt; {@code opened} makes the session of it, its connection closed if that fails.
   *
   * @throws RebuildFailedException when the rebuild failed; any other exception when the gate
   *     cannot open yet
   */
  <T> T open(BiFunction<GateSession, GateConnection, T> opened) {
    GateConnection connection = GateConnection.open(redis, redisProperties);
    try {
      StringRedisTemplate template = new StringRedisTemplate(connection.factory());
      String runId = GateServers.runId(connection.factory(), template);
      String evicting = GateServers.evictingServers(connection.factory(), template);
      if (evicting != null) {
        evictionSeen = true;
        throw new NotYetException(
            evicting
                + ": Redis may evict the gate's keys (holders, pending admissions, moves), so"
                + " the gate stays closed until maxmemory-policy is "
                + GateServers.NO_EVICTION);
      }
      // The record's row first, then the markers: a rebuild by another instance that began after
      // the row was read changed the row, so a claim on it fails; had the markers been read
      // first, a rebuild that cleared them and ended before the row was read would be taken for a
      // lost gate and done again.
      GateEpochs.Row row = epochs.read();
      List<Map<Object, Object>> markers = new ArrayList<>();
      for (GateLayout.Partition partition : layout.partitions()) {
        markers.add(template.opsForHash().entries(partition.marker()));
      }
      String why =
          evictionSeen
              ? "Redis's maxmemory-policy allowed evictions since the gate was last checked"
              : whyNotTrusted(row, markers, runId);
      if (why == null) {
        return opened.apply(new GateSession(template, row.epoch()), connection);
      }
      long epoch;
      if (row.rebuiltBy(me)) {
        // An earlier attempt of this instance failed: its epoch admitted nothing, so it goes on.
        epoch = row.epoch();
        if (!epochs.renew(epoch, me)) {
          throw new NotYetException("the rebuild of epoch " + epoch + " was taken over");
        }
        log.warn("Gate rebuild from the event store as epoch {} tried again", epoch);
      } else {
        if (row.rebuiltByOther(me, properties.rebuildLease())) {
          throw new NotYetException("gate being rebuilt by " + row.owner());
        }
        epoch =
            epochs
                .claim(row, me, properties.rebuildLease())
                .orElseThrow(() -> new NotYetException("another instance began a rebuild"));
        log.warn("Gate closed for a rebuild from the event store as epoch {}: {}", epoch, why);
      }
      Runnable then;
      try {
        then = rebuild.rebuild(template, epoch, runId, lease(epoch));
      } catch (RebuildLease.TakenOverException e) {
        throw new NotYetException(e.getMessage());
      } catch (RuntimeException e) {
        throw new RebuildFailedException(epoch, e);
      }
      if (!epochs.open(epoch, runId, me)) {
        throw new NotYetException("the rebuild of epoch " + epoch + " was taken over");
      }
      evictionSeen = false;
      afterOpen = then;
      return opened.apply(new GateSession(template, epoch), connection);
    } catch (RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  /**
   * The lease of this instance's rebuild of {@code epoch}, renewed in the database at most every
   * quarter of {@code rebuild-lease}.
   */
  private RebuildLease lease(long epoch) {
    long every = Math.max(properties.rebuildLease().toNanos() / 4, 1);
    return new RebuildLease() {
      private volatile long renewedAt = System.nanoTime();

      @Override
      public void renew() {
        if (System.nanoTime() - renewedAt < every) {
          return;
        }
        if (!epochs.renew(epoch, me)) {
          throw new RebuildLease.TakenOverException(epoch);
        }
        renewedAt = System.nanoTime();
      }
    };
  }

  /** Null when Redis holds the gate the database trusts, else why it must be rebuilt. */
  private String whyNotTrusted(
      GateEpochs.Row row, List<Map<Object, Object>> markers, String runId) {
    if (!row.open()) {
      return "the gate is " + row.state() + " in epoch " + row.epoch();
    }
    for (int index = 0; index < markers.size(); index++) {
      Map<Object, Object> marker = markers.get(index);
      String partition = "partition " + layout.partition(index).tag();
      if (marker.get("epoch") == null) {
        return "Redis has no gate in " + partition + " (empty, flushed, or being rebuilt)";
      }
      if (!String.valueOf(row.epoch()).equals(marker.get("epoch"))) {
        return "Redis holds gate epoch "
            + marker.get("epoch")
            + " in "
            + partition
            + ", the record "
            + row.epoch();
      }
      if (!String.valueOf(layout.partitions().size()).equals(marker.get("partitions"))
          || !layout.placement().equals(marker.get("placement"))) {
        return "Redis holds the gate in another layout ("
            + marker.get("partitions")
            + " partitions, placement '"
            + marker.get("placement")
            + "')";
      }
    }
    if (!runId.equals(row.redisRunId())) {
      return "Redis restarted or failed over (run_id "
          + row.redisRunId()
          + " -> "
          + runId
          + "): its data may be older than what it acknowledged";
    }
    return null;
  }

  /** An exception's message and those of its causes, for the log and the health component. */
  static String describe(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null && text.length() < 1000; t = t.getCause()) {
      String message = t.getMessage() == null ? t.getClass().getName() : t.getMessage();
      if (text.indexOf(message) < 0) {
        text.append(text.length() > 0 ? ": " : "").append(message);
      }
    }
    return text.length() > 1000 ? text.substring(0, 1000) : text.toString();
  }
}
