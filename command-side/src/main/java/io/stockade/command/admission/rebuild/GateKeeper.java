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
import org.springframework.stereotype.Component;

/**
 * Opens the gate, and closes it when Redis may have lost data.
 *
 * <p>Each session has a connection of its own that never reconnects by itself: a Redis restart or
 * failover ends the session, and no command reaches the new server before it has been checked and,
 * if it cannot be trusted, the gate rebuilt ({@link GateOpener}).
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

  /** The pause after a first failed rebuild, doubled after each further one. */
  static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);

  /** The longest pause between two attempts to rebuild. */
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private final GateProperties properties;
  private final GateLayout layout;
  private final String me =
      ManagementFactory.getRuntimeMXBean().getName()
          + "/"
          + UUID.randomUUID().toString().substring(0, 8);
  private final GateOpener gateOpener;
  private final ScheduledExecutorService opener =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("gate-opener"));
  private final ExecutorService afterOpening =
      Executors.newSingleThreadExecutor(DaemonThreads.named("gate-after-rebuild"));

  private final AtomicReference<Opened> current = new AtomicReference<>();
  private final AtomicBoolean opening = new AtomicBoolean();
  private volatile String lastFailure;
  private volatile int failedRebuilds;

  GateKeeper(
      DataRedisConnectionDetails redis,
      DataRedisProperties redisProperties,
      GateEpochs epochs,
      GateRebuild rebuild,
      GateProperties properties,
      GateLayout layout) {
    this.properties = properties;
    this.layout = layout;
    this.gateOpener =
        new GateOpener(redis, redisProperties, epochs, rebuild, properties, layout, me);
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
      gateOpener.evictionSeen();
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
      Opened opened = gateOpener.open(this::opened);
      current.set(opened);
      opening.set(false);
      lastFailure = null;
      failedRebuilds = 0;
      log.info("Gate open in epoch {}", opened.session().epoch());
      Runnable then = gateOpener.takeAfterOpen();
      if (then != null) {
        try {
          afterOpening.execute(then);
        } catch (RejectedExecutionException shuttingDown) {
          // What it owed is recorded in the database: any instance takes it up once overdue.
        }
      }
    } catch (RuntimeException e) {
      long delay = properties.reopenInterval().toMillis();
      String failure = GateOpener.describe(e);
      if (e instanceof GateOpener.RebuildFailedException) {
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
