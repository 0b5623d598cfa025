package io.stockade.command.admission;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.event.connection.DisconnectedEvent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
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
  private record Opened(GateSession session, Connection connection) {}

  /** A session's connection factory, with client resources of its own. */
  private record Connection(LettuceConnectionFactory factory, ClientResources resources) {

    void close() {
      factory.destroy();
      resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }

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

  /** The only {@code maxmemory-policy} that never evicts a key. */
  static final String NO_EVICTION = "noeviction";

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
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "gate-opener");
            thread.setDaemon(true);
            return thread;
          });
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
      evicting = evictingServers(opened.connection().factory(), session.redis());
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
    Connection connection = connect();
    try {
      StringRedisTemplate template = new StringRedisTemplate(connection.factory());
      String runId = runId(connection.factory(), template);
      String evicting = evictingServers(connection.factory(), template);
      if (evicting != null) {
        evictionSeen = true;
        throw new NotYetException(
            evicting
                + ": Redis may evict the gate's keys (holders, pending admissions, moves), so"
                + " the gate stays closed until maxmemory-policy is "
                + NO_EVICTION);
      }
      List<Map<Object, Object>> markers = new ArrayList<>();
      for (GateLayout.Partition partition : layout.partitions()) {
        markers.add(template.opsForHash().entries(partition.marker()));
      }
      GateEpochs.Row row = epochs.read();
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
      try {
        rebuild.rebuild(template, epoch, runId, lease(epoch));
      } catch (RebuildLease.TakenOverException e) {
        throw new NotYetException(e.getMessage());
      } catch (RuntimeException e) {
        throw new RebuildFailedException(epoch, e);
      }
      if (!epochs.open(epoch, runId, me)) {
        throw new NotYetException("the rebuild of epoch " + epoch + " was taken over");
      }
      evictionSeen = false;
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
      private long renewedAt = System.nanoTime();

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
   * The servers whose {@code maxmemory-policy} may evict keys, as "host:port has policy" (null when
   * none): the one server, or every master of a cluster.
   */
  static String evictingServers(LettuceConnectionFactory factory, StringRedisTemplate template) {
    List<String> evicting = new ArrayList<>();
    if (!factory.isClusterAware()) {
      String policy =
          template.execute(
              (RedisCallback<String>)
                  c ->
                      evictionPolicy(
                          () -> c.serverCommands().getConfig("maxmemory-policy"),
                          () -> c.serverCommands().info("memory")));
      if (!NO_EVICTION.equals(policy)) {
        evicting.add("Redis has maxmemory-policy " + policy);
      }
    } else {
      try (RedisClusterConnection cluster = factory.getClusterConnection()) {
        for (RedisClusterNode node : cluster.clusterGetNodes()) {
          if (node.isMaster()) {
            String policy =
                evictionPolicy(
                    () -> cluster.serverCommands().getConfig(node, "maxmemory-policy"),
                    () -> cluster.serverCommands().info(node, "memory"));
            if (!NO_EVICTION.equals(policy)) {
              evicting.add(
                  "Redis "
                      + node.getHost()
                      + ":"
                      + node.getPort()
                      + " has maxmemory-policy "
                      + policy);
            }
          }
        }
      }
    }
    return evicting.isEmpty() ? null : String.join(", ", evicting);
  }

  /**
   * A server's {@code maxmemory-policy}: from CONFIG GET, or where CONFIG is disabled or renamed
   * from INFO memory.
   */
  private static String evictionPolicy(Supplier<Properties> config, Supplier<Properties> info) {
    try {
      Properties answer = config.get();
      String policy = answer == null ? null : answer.getProperty("maxmemory-policy");
      if (policy != null) {
        return policy;
      }
    } catch (RuntimeException configRefused) {
      // CONFIG renamed or disabled: INFO tells too.
    }
    Properties memory = info.get();
    String policy = memory == null ? null : memory.getProperty("maxmemory_policy");
    if (policy == null) {
      throw new NotYetException("Redis tells neither by CONFIG nor by INFO its maxmemory-policy");
    }
    return policy;
  }

  /**
   * The session ends when any of its connections drops: a cluster client would otherwise connect
   * again by itself, to a node that may have come back with older data.
   */
  private Opened opened(GateSession session, Connection connection) {
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

  /**
   * The run_id of the Redis server, or for a cluster a digest of its masters' run_ids: it changes
   * when any of them restarts or a replica takes over.
   */
  private static String runId(LettuceConnectionFactory factory, StringRedisTemplate template) {
    if (!factory.isClusterAware()) {
      Properties info =
          template.execute((RedisCallback<Properties>) c -> c.serverCommands().info("server"));
      return runId(info, "Redis");
    }
    List<String> runIds = new ArrayList<>();
    try (RedisClusterConnection cluster = factory.getClusterConnection()) {
      for (RedisClusterNode node : cluster.clusterGetNodes()) {
        if (node.isMaster()) {
          runIds.add(runId(cluster.serverCommands().info(node, "server"), node.toString()));
        }
      }
    }
    Collections.sort(runIds);
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-1")
              .digest(String.join(",", runIds).getBytes(StandardCharsets.UTF_8));
      return "cluster:" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String runId(Properties info, String server) {
    String runId = info == null ? null : info.getProperty("run_id");
    if (runId == null) {
      throw new NotYetException(server + " did not tell its run_id");
    }
    return runId;
  }

  /**
   * A connection factory of the session's own, which never reconnects by itself: to the standalone
   * Redis, or to the cluster named by {@code spring.data.redis.cluster.nodes}. A cluster session
   * follows no redirection: a slot served elsewhere than when the session was checked ends it.
   */
  private Connection connect() {
    Duration timeout = redisProperties.getTimeout();
    Duration connectTimeout = redisProperties.getConnectTimeout();
    SocketOptions.Builder socket = SocketOptions.builder();
    if (connectTimeout != null) {
      socket.connectTimeout(connectTimeout);
    }
    ClientResources resources = DefaultClientResources.create();
    DataRedisConnectionDetails.Cluster cluster = redis.getCluster();
    ClientOptions options =
        cluster == null
            ? GateConfiguration.rejectWhileDisconnected(ClientOptions.builder())
                .autoReconnect(false)
                .socketOptions(socket.build())
                .build()
            : ((ClusterClientOptions.Builder)
                    GateConfiguration.rejectWhileDisconnected(ClusterClientOptions.builder())
                        .autoReconnect(false)
                        .socketOptions(socket.build()))
                .maxRedirects(0)
                .build();
    LettuceClientConfiguration.LettuceClientConfigurationBuilder client =
        LettuceClientConfiguration.builder().clientResources(resources).clientOptions(options);
    if (timeout != null) {
      client.commandTimeout(timeout);
    }
    LettuceConnectionFactory factory;
    if (cluster == null) {
      DataRedisConnectionDetails.Standalone standalone = redis.getStandalone();
      RedisStandaloneConfiguration server =
          new RedisStandaloneConfiguration(standalone.getHost(), standalone.getPort());
      server.setDatabase(standalone.getDatabase());
      server.setUsername(redis.getUsername());
      server.setPassword(RedisPassword.of(redis.getPassword()));
      factory = new LettuceConnectionFactory(server, client.build());
    } else {
      RedisClusterConfiguration servers = new RedisClusterConfiguration();
      cluster.getNodes().forEach(node -> servers.clusterNode(node.host(), node.port()));
      servers.setUsername(redis.getUsername());
      servers.setPassword(RedisPassword.of(redis.getPassword()));
      factory = new LettuceConnectionFactory(servers, client.build());
    }
    try {
      factory.afterPropertiesSet();
      factory.start();
    } catch (RuntimeException e) {
      resources.shutdown(0, 2, TimeUnit.SECONDS);
      throw e;
    }
    return new Connection(factory, resources);
  }

  @Override
  public void destroy() {
    opener.shutdownNow();
    Opened opened = current.getAndSet(null);
    if (opened != null) {
      opened.connection().close();
    }
  }
}
