package io.stockade.localinfra;

import io.lettuce.core.cluster.SlotHash;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One master of an {@link EmbeddedRedisCluster}: where it lives, which slots it serves, its
 * configuration and its {@code redis-server} process.
 */
final class ClusterNode {

  private static final Logger log = LoggerFactory.getLogger(ClusterNode.class);

  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

  private final int index;
  private final Path folder;
  private final int port;
  private final int firstSlot;
  private final int lastSlot;
  // Read by the shutdown hook, which takes no lock.
  volatile Process process;

  ClusterNode(int index, Path folder, int port, int firstSlot, int lastSlot) {
    this.index = index;
    this.folder = folder;
    this.port = port;
    this.firstSlot = firstSlot;
    this.lastSlot = lastSlot;
  }

  int index() {
    return index;
  }

  Path folder() {
    return folder;
  }

  int port() {
    return port;
  }

  int firstSlot() {
    return firstSlot;
  }

  int lastSlot() {
    return lastSlot;
  }

  boolean serves(int slot) {
    return firstSlot <= slot && slot <= lastSlot;
  }

  /** Its {@code redis.conf}. */
  String configuration(String host) {
    return String.join(
        "\n",
        "bind " + host,
        "port " + port,
        "dir \"" + folder + "\"",
        "daemonize no",
        "cluster-enabled yes",
        "cluster-config-file nodes.conf",
        // Small, so that the cluster notices a killed node and a restarted one quickly.
        "cluster-node-timeout 2000",
        // No persistence: a restarted node comes back empty.
        "save \"\"",
        "appendonly no",
        "");
  }

  /** A key in one of the node's slots, outside every key space of the project. */
  String probeKey() {
    for (int i = 0; ; i++) {
      String key = "embedded-redis-cluster:restart-probe:{" + i + "}";
      if (serves(SlotHash.getSlot(key))) {
        return key;
      }
    }
  }

  /** Kills its process (SIGKILL: nothing to save, and it cannot hang), if it has one. */
  void kill() {
    Process running = process;
    if (running == null) {
      return;
    }
    running.destroyForcibly();
    try {
      if (!running.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("{} (process {}) still runs {} after SIGKILL", this, running.pid(), STOP_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** What its log file holds from {@code offset} on. */
  static String logSince(Path logFile, long offset) {
    try {
      byte[] bytes = Files.readAllBytes(logFile);
      int from = (int) Math.min(offset, bytes.length);
      return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public String toString() {
    return "Redis Cluster node " + index + " (port " + port + ")";
  }
}
