package io.stockade.localinfra;

import io.lettuce.core.api.sync.RedisCommands;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.core.ExecutableProvider;

/**
 * A real Redis Cluster on loopback ports: one redis-server process per master, no replicas, formed
 * with Redis commands (no redis-cli needed).
 *
 * <p>Persistence is off, so a node restarted by {@link #restartEmpty(int)} comes back with its
 * cluster configuration (its {@code nodes.conf}, hence its slots) but without data: a Redis that
 * lost writes it had acknowledged, which is what tests of recovery need.
 *
 * <p>The binary is the {@code redis-server} on the {@code PATH}, else the one bundled by
 * embedded-redis. Each node keeps its {@code redis.conf}, {@code nodes.conf} and {@code redis.log}
 * in a folder of its own under the folder given to {@link #start(Path, int)}.
 */
public final class EmbeddedRedisCluster implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisCluster.class);

  static final int SLOTS = 16384;
  private static final String HOST = ClusterAdmin.HOST;

  // Redis listens for the cluster bus on the client port + 10000 (Redis 6.2, the bundled binary,
  // cannot be told otherwise). Client ports 10000-22767 keep both ports below 32768, where Linux
  // picks the local ports of outgoing connections, so that only listening sockets can be in the
  // way.
  private static final int BUS_PORT_OFFSET = 10000;
  private static final int FIRST_PORT = 10000;
  private static final int LAST_PORT = 22767;

  // Generous, for a loaded two-core machine; bounded, so that a broken start fails the test run
  // instead of hanging it.
  private static final int START_ATTEMPTS = 5;
  private static final Duration NODE_START_TIMEOUT = Duration.ofSeconds(30);

  private static Path bundledBinary;

  private final Path binary;
  // Copied on write: the shutdown hook reads it while a start may still be adding nodes.
  private final List<ClusterNode> nodes = new CopyOnWriteArrayList<>();
  private final ClusterAdmin admin;
  private final Thread killOnExit;

  // Guards launching against closing, not the other operations: close() must never wait for a
  // restart that is waiting for the cluster, and no process may be launched once it has run.
  private final Object processes = new Object();
  private volatile boolean closed;

  private EmbeddedRedisCluster(Path binary) {
    this.binary = binary;
    this.admin = new ClusterAdmin(nodes);
    // Without it, a test run that dies leaves redis-server processes behind.
    this.killOnExit = new Thread(this::killAll, "embedded-redis-cluster-killer");
    Runtime.getRuntime().addShutdownHook(killOnExit);
  }

  /**
   * Starts a cluster of {@code masters} masters without replicas, the slots split between them in
   * contiguous ranges as redis-cli does, and waits until every node reports it {@code ok}.
   *
   * @param dir a folder for the nodes' files; it must not hold a cluster's files already
   * @throws IllegalStateException when the nodes do not start or the cluster does not become ok in
   *     time
   */
  public static EmbeddedRedisCluster start(Path dir, int masters) {
    return start(dir, masters, redisServerBinary());
  }

  static EmbeddedRedisCluster start(Path dir, int masters, Path binary) {
    if (masters < 1 || masters > SLOTS) {
      throw new IllegalArgumentException("A cluster needs 1 to " + SLOTS + " masters: " + masters);
    }
    long started = System.nanoTime();
    List<Path> folders = prepareFolders(dir, masters);
    EmbeddedRedisCluster cluster = new EmbeddedRedisCluster(binary);
    try {
      int first = 0;
      for (int i = 0; i < masters; i++) {
        // redis-cli's split: node i ends at round((i + 1) * 16384 / masters) - 1.
        int last =
            i == masters - 1 ? SLOTS - 1 : (int) Math.round((i + 1) * (double) SLOTS / masters - 1);
        cluster.launchOnFreePort(i, folders.get(i), first, last);
        first = last + 1;
      }
      cluster.admin.form();
      cluster.admin.awaitClusterOk();
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
    log.info(
        "Started a Redis Cluster of {} masters on {} in {} ms ({})",
        masters,
        cluster.nodes(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
        binary);
    return cluster;
  }

  private static List<Path> prepareFolders(Path dir, int masters) {
    List<Path> folders = new ArrayList<>();
    try {
      for (int i = 0; i < masters; i++) {
        Path folder = Files.createDirectories(dir.resolve("node-" + i)).toAbsolutePath();
        // A node would load the old cluster's configuration, whose nodes and ports are gone.
        if (Files.exists(folder.resolve("nodes.conf"))) {
          throw new IllegalStateException(
              folder + " holds the nodes.conf of an earlier cluster: give a new folder");
        }
        folders.add(folder);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot prepare the cluster's folders in " + dir, e);
    }
    return folders;
  }

  /** The {@code redis-server} on the PATH, else the one bundled by embedded-redis. */
  static Path redisServerBinary() {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String folder : path.split(File.pathSeparator)) {
        Path candidate = Path.of(folder.isEmpty() ? "." : folder, "redis-server");
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return candidate.toAbsolutePath();
        }
      }
    }
    return bundledBinary();
  }

  /** The redis-server bundled by embedded-redis, extracted once per JVM. */
  static synchronized Path bundledBinary() {
    if (bundledBinary == null) {
      try {
        bundledBinary = ExecutableProvider.newJarResourceProvider().get().toPath().toAbsolutePath();
      } catch (IOException | RuntimeException e) {
        throw new IllegalStateException(
            "No redis-server on the PATH, and embedded-redis bundles none for this platform", e);
      }
    }
    return bundledBinary;
  }

  /** The masters' client ports, in the order of their slot ranges. */
  public List<Integer> ports() {
    return nodes.stream().map(ClusterNode::port).toList();
  }

  /**
   * The masters as {@code 127.0.0.1:port} separated by commas: the format of {@code
   * spring.data.redis.cluster.nodes}.
   */
  public String nodes() {
    return nodes.stream().map(node -> HOST + ":" + node.port()).collect(Collectors.joining(","));
  }

  /**
   * The client port of the master that serves {@code slot}. Slots never move: there are no replicas
   * to fail over to, and nothing here reshards.
   */
  public int portOfSlot(int slot) {
    if (slot < 0 || slot >= SLOTS) {
      throw new IllegalArgumentException("No slot " + slot + ": slots are 0 to " + (SLOTS - 1));
    }
    return nodes.stream().filter(node -> node.serves(slot)).findFirst().orElseThrow().port();
  }

  /**
   * Kills node {@code nodeIndex} (SIGKILL, so it saves nothing), starts it again on the same port
   * with the same {@code nodes.conf}, and waits until the cluster is ok again. The node keeps its
   * slots and has lost all its keys.
   *
   * @throws IllegalStateException when the node does not come back or the cluster does not become
   *     ok in time
   */
  public synchronized void restartEmpty(int nodeIndex) {
    checkOpen();
    if (nodeIndex < 0 || nodeIndex >= nodes.size()) {
      throw new IllegalArgumentException(
          "No node " + nodeIndex + ": nodes are 0 to " + (nodes.size() - 1));
    }
    ClusterNode node = nodes.get(nodeIndex);
    // A key of the node's own that no client writes: it must be gone once the node is back. (Its
    // key count proves nothing: clients may write new keys the moment it answers again.)
    String probe = node.probeKey();
    admin.onNode(node, commands -> commands.set(probe, "kept only if persisted"));
    node.kill();
    IllegalStateException failure = null;
    // The same port on purpose: the other nodes know the node by it. A retry covers a port that
    // something took for a moment.
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      try {
        launch(node);
        failure = null;
        break;
      } catch (IllegalStateException e) {
        failure = e;
        node.kill();
        ClusterAdmin.sleep(500);
      }
    }
    if (failure != null) {
      throw failure;
    }
    admin.awaitClusterOk();
    if (admin.onNode(node, commands -> commands.exists(probe)) != 0) {
      throw new IllegalStateException(
          "Node " + nodeIndex + " came back with its keys: something persisted them");
    }
  }

  /** Deletes every key of every master. */
  public synchronized void flushAll() {
    checkOpen();
    for (ClusterNode node : nodes) {
      admin.onNode(node, RedisCommands::flushall);
    }
  }

  /**
   * Kills every node (SIGKILL: nothing to save, and it cannot hang) and leaves their folders as
   * they are.
   */
  @Override
  public void close() {
    synchronized (processes) {
      if (closed) {
        return;
      }
      closed = true;
    }
    for (ClusterNode node : nodes) {
      node.kill();
    }
    admin.shutdown();
    try {
      Runtime.getRuntime().removeShutdownHook(killOnExit);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or about to: it kills what is left, which is nothing.
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("The Redis Cluster on " + nodes() + " is closed");
    }
  }

  private void launchOnFreePort(int index, Path folder, int firstSlot, int lastSlot) {
    IllegalStateException failure = null;
    // Another process can take a port between the check and redis-server's bind: try another.
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      ClusterNode node = new ClusterNode(index, folder, freeClusterPort(), firstSlot, lastSlot);
      // Listed before it runs, so that the shutdown hook and close() kill it.
      nodes.add(node);
      try {
        launch(node);
        return;
      } catch (IllegalStateException e) {
        failure = e;
        node.kill();
        nodes.remove(node);
        try {
          // Written before the failed bind, with a node id the next attempt must not inherit.
          Files.deleteIfExists(folder.resolve("nodes.conf"));
        } catch (IOException cannotDelete) {
          e.addSuppressed(cannotDelete);
          throw e;
        }
        log.warn("Redis Cluster node {} did not start, trying another port", index, e);
      }
    }
    throw failure;
  }

  private int freeClusterPort() {
    Set<Integer> taken = new HashSet<>();
    for (ClusterNode node : nodes) {
      taken.add(node.port());
      taken.add(node.port() + BUS_PORT_OFFSET);
    }
    for (int attempt = 0; attempt < 1000; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(FIRST_PORT, LAST_PORT + 1);
      if (!taken.contains(port)
          && !taken.contains(port + BUS_PORT_OFFSET)
          && bindable(port)
          && bindable(port + BUS_PORT_OFFSET)) {
        return port;
      }
    }
    throw new IllegalStateException(
        "No free pair of ports p and p+" + BUS_PORT_OFFSET + " from " + FIRST_PORT + " on");
  }

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      // As redis-server binds: connections lingering in TIME_WAIT do not stand in its way.
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(HOST, port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Starts the node's process and waits until it answers; throws if it does not. */
  private void launch(ClusterNode node) {
    Path config = node.folder().resolve("redis.conf");
    Path logFile = node.folder().resolve("redis.log");
    Process process;
    long logStart;
    try {
      Files.writeString(config, node.configuration(HOST), StandardCharsets.UTF_8);
      logStart = Files.exists(logFile) ? Files.size(logFile) : 0;
      ProcessBuilder builder =
          new ProcessBuilder(binary.toString(), config.toString())
              .directory(node.folder().toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
      synchronized (processes) {
        checkOpen();
        process = builder.start();
        node.process = process;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start " + binary + " for " + node, e);
    }
    long deadline = System.nanoTime() + NODE_START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            node
                + " exited with "
                + process.exitValue()
                + ":\n"
                + ClusterNode.logSince(logFile, logStart));
      }
      Optional<Long> answeringPid = admin.pidAnswering(node);
      if (answeringPid.isPresent()) {
        // Another server that took the port in the meantime would answer too.
        if (answeringPid.get() == process.pid()) {
          return;
        }
        throw new IllegalStateException(
            node
                + ": process "
                + answeringPid.get()
                + " answers on its port, not "
                + process.pid());
      }
      ClusterAdmin.sleep(ClusterAdmin.POLL_MILLIS);
    }
    throw new IllegalStateException(
        node
            + " did not answer within "
            + NODE_START_TIMEOUT
            + ":\n"
            + ClusterNode.logSince(logFile, logStart));
  }

  private void killAll() {
    for (ClusterNode node : nodes) {
      Process process = node.process;
      if (process != null) {
        process.destroyForcibly();
      }
    }
  }
}
