package io.stockade.command.admission.rebuild;

import io.lettuce.core.event.connection.DisconnectedEvent;
import io.stockade.command.admission.redis.GateConnection;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateProperties;
import io.stockade.command.admission.redis.GateServers;
import io.stockade.command.admission.redis.GateSession;
import io.stockade.command.admission.redis.GateSessions;
import io.stockade.platform.concurrent.DaemonThreads;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * Opens the gate, and closes it when Redis may have lost data.
 *
 * <p>Each session has a connection of its own that never reconnects by itself: a Redis restart or
 * failover ends the session, and no command reaches the new server before it has been checked. The
 * check: the gate's epoch in the database is OPEN, Redis's marker holds the same epoch, and Redis
 * is the very server process (run_id) the gate was built or last checked on. A restarted server may
 * have come back with an older copy of its data (AOF, RDB, a lagging replica), so it is never
 * trusted: the gate is rebuilt from the event store instead.
 *
 * <p>A rebuild is claimed in the database (next epoch, REBUILDING), which waits for admissions of
 * the old epoch still being stored and fences out later ones; the other instances wait until the
 * epoch is OPEN, then adopt it. A claim left by an instance that stopped answering is taken over
 * after {@code stockade.gate.rebuild-lease} without news, by the database's clock; the rebuilding
 * instance renews the lease as it works.
 *
 * <p>A rebuild that fails is logged with its cause on every attempt, reported by the health
 * component, and tried again in the same epoch after a pause that doubles from {@link
 * #FIRST_BACKOFF} to {@link #MAX_BACKOFF}.
 *
 * <p>The gate never opens on a Redis that may evict keys ({@code maxmemory-policy} other than
 * {@code noeviction}, on any master): an evicted holder, pending admission or move would silently
 * let units be sold twice or lost.
 */
@Component
class GateKeeper implements GateSessions, DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(GateKeeper.class);

  /** An open session with the connection that is its own. */
  private record Opened(GateSession session, GateConnection connection) {}

  /** The gate cannot open yet; the next attempt follows after the reopen interval. */
  private static final class NotYetException extends RuntimeException {

    NotYetException(String message) {
      super(message, null, false, false);
    }
  }

  /** The rebuild of an epoch failed; the next attempt follows after a back-off. */
  private static final class RebuildFailedException extends RuntimeException {

    RebuildFailedException(long epoch, RuntimeException cause) {
      super("the rebuild of gate epoch " + epoch + " failed: " + describe(cause), cause);
    }
  }

  /** The pause after a first failed rebuild, doubled after each further one. */
  static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);

  /** The longest pause between two attempts to rebuild. */
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private final DataRedisConnectionDetails redis;
  private final DataRedisProperties redisProperties;
  private final GateEpochs epochs;
  private final GateRebuild rebuild;
  private final GateProperties properties;
  private final GateLayout layout;
  private final String me =
      ManagementFactory.getRuntimeMXBean().getName()
          + "/"
          + UUID.randomUUID().toString().substring(0, 8);
  private final ScheduledExecutorService opener =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("gate-opener"));
  private final ExecutorService afterOpening =
      Executors.newSingleThreadExecutor(DaemonThreads.named("gate-after-rebuild"));

  /** What the rebuild that opened the gate left to do once it is open (opener thread only). */
  private Runnable afterOpen;

  private final AtomicReference<Opened> current = new AtomicReference<>();
  private final AtomicBoolean opening = new AtomicBoolean();
  private volatile String lastFailure;
  private volatile int failedRebuilds;

  /**
   * This instance saw a Redis that may evict keys: it may have evicted some of the gate's before it
   * was put right, so the gate is rebuilt before it opens again.
   */
  private volatile boolean evictionSeen;

  GateKeeper(
      DataRedisConnectionDetails redis,
      DataRedisProperties redisProperties,
      GateEpochs epochs,
      GateRebuild rebuild,
      GateProperties properties,
      GateLayout layout) {
    this.redis = redis;
    this.redisProperties = redisProperties;
    this.epochs = epochs;
    this.rebuild = rebuild;
    this.properties = properties;
    this.layout = layout;
  }

  /** Why the gate is closed on this instance (the last attempt's failure), or null. */
  String closedBecause() {
    return current.get() == null ? lastFailure : null;
  }

  /** Rebuilds that failed in a row on this instance. */
  int failedRebuilds() {
    return failedRebuilds;
  }

  @Override
  public GateSession current() {
    Opened opened = current.get();
    if (opened != null) {
      return opened.session();
    }
    requestOpen();
    return null;
  }

  /**
   * Whether this instance holds an open session, as last found: without asking Redis, which the
   * next request, readiness check or {@link #checkedEpoch()} does.
   */
  boolean holdsOpenSession() {
    return current.get() != null;
  }

  /**
   * The epoch of the open session once Redis has confirmed it still holds that gate, and may not
   * evict keys; empty while the gate is closed. A session that fails the check is dropped, as a
   * failed script would drop it, so that a Redis that restarted while no reservation came is
   * noticed here too. A Redis found with a policy that may evict is rebuilt before the gate opens
   * again.
   */
  OptionalLong checkedEpoch() {
    Opened opened = current.get();
    if (opened == null) {
      return OptionalLong.empty();
    }
    GateSession session = opened.session();
    String expected = String.valueOf(session.epoch());
    for (GateLayout.Partition partition : layout.partitions()) {
      Object epoch;
      try {
        epoch = session.redis().opsForHash().get(partition.marker(), "epoch");
      } catch (RuntimeException e) {
        epoch = null;
      }
      if (!expected.equals(epoch)) {
        lost(session);
        return OptionalLong.empty();
      }
    }
    String evicting;
    try {
      evicting = GateServers.evictingServers(opened.connection().factory(), session.redis());
    } catch (RuntimeException e) {
      lost(session);
      return OptionalLong.empty();
    }
    if (evicting != null) {
      log.error("Gate closed: {}, which may evict the gate's keys", evicting);
      evictionSeen = true;
      lost(session);
      return OptionalLong.empty();
    }
    return OptionalLong.of(session.epoch());
  }

  @Override
  public void lost(GateSession session) {
    Opened opened = current.get();
    if (opened != null && opened.session() == session && current.compareAndSet(opened, null)) {
      log.warn("Gate closed: Redis failed or no longer holds gate epoch {}", session.epoch());
      opened.connection().close();
      requestOpen();
    }
  }

  /** Opens the gate before the service reports itself ready, within {@code open-on-start}. */
  @EventListener(ApplicationReadyEvent.class)
  void openOnStart() throws InterruptedException {
    requestOpen();
    long deadline = System.nanoTime() + properties.openOnStart().toNanos();
    while (current.get() == null && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    if (current.get() == null) {
      log.warn("Gate still closed after {}; it opens in the background", properties.openOnStart());
    }
  }

  private void requestOpen() {
    if (opening.compareAndSet(false, true)) {
      try {
        opener.execute(this::attempt);
      } catch (RejectedExecutionException shuttingDown) {
        opening.set(false);
      }
    }
  }

  private void attempt() {
    try {
      Opened opened = open();
      current.set(opened);
      opening.set(false);
      lastFailure = null;
      failedRebuilds = 0;
      log.info("Gate open in epoch {}", opened.session().epoch());
      if (afterOpen != null) {
        Runnable then = afterOpen;
        afterOpen = null;
        try {
          afterOpening.execute(then);
        } catch (RejectedExecutionException shuttingDown) {
          // What it owed is recorded in the database: any instance takes it up once overdue.
        }
      }
    } catch (RuntimeException e) {
      long delay = properties.reopenInterval().toMillis();
      String failure = describe(e);
      if (e instanceof RebuildFailedException) {
        int failed = ++failedRebuilds;
        delay = backoff(failed).toMillis();
        log.error(
            "Gate stays closed: {} (failed {} time(s) in a row); trying again in {} ms",
            failure,
            failed,
            delay,
            e.getCause());
      } else if (!failure.equals(lastFailure)) {
        log.warn("Gate cannot open yet ({}); trying again", failure);
      }
      lastFailure = failure;
      if (!opener.isShutdown()) {
        try {
          opener.schedule(this::attempt, delay, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException shuttingDown) {
          opening.set(false);
        }
      }
    }
  }

  /** The pause after {@code failed} failed rebuilds in a row. */
  static Duration backoff(int failed) {
    Duration delay = FIRST_BACKOFF;
    for (int i = 1; i < failed && delay.compareTo(MAX_BACKOFF) < 0; i++) {
      delay = delay.multipliedBy(2);
    }
    return delay.compareTo(MAX_BACKOFF) < 0 ? delay : MAX_BACKOFF;
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

  private Opened open() {
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
        return opened(new GateSession(template, row.epoch()), connection);
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
      return opened(new GateSession(template, epoch), connection);
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

  /**
   * The session ends when any of its connections drops: a cluster client would otherwise connect
   * again by itself, to a node that may have come back with older data.
   */
  private Opened opened(GateSession session, GateConnection connection) {
    Opened opened = new Opened(session, connection);
    connection
        .resources()
        .eventBus()
        .get()
        .filter(DisconnectedEvent.class::isInstance)
        .subscribe(disconnected -> lost(session));
    return opened;
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

  @Override
  public void destroy() {
    opener.shutdownNow();
    afterOpening.shutdownNow();
    Opened opened = current.getAndSet(null);
    if (opened != null) {
      opened.connection().close();
    }
  }
}
