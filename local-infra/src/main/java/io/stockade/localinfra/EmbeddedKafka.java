package io.stockade.localinfra;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Apache Kafka broker, one node in KRaft mode (broker and controller in one), running in
 * this process on loopback ports, with its log in a folder of its own so that a restart keeps its
 * topics. The quick start's broker ({@code STOCKADE_KAFKA=1 ./stockade up}) and the tests' broker.
 *
 * <p>Sized for one node: every internal topic (consumer offsets, transaction state) has one replica
 * and one partition, so that the first transaction does not wait for fifty partitions to be made.
 * The ports used last are taken again when free ({@code ports.properties} in the folder), so that a
 * restarted broker keeps its address.
 */
public final class EmbeddedKafka implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);
  private static final String PORTS = "ports.properties";

  private final KafkaRaftServer server;
  private final int port;

  private EmbeddedKafka(KafkaRaftServer server, int port) {
    this.server = server;
    this.port = port;
  }

  /** Starts a broker keeping its data in {@code dir}, formatting it on first use. */
  public static EmbeddedKafka start(Path dir) {
    try {
      Files.createDirectories(dir);
      Properties ports = ports(dir);
      int port = port(ports, "broker");
      int controllerPort = port(ports, "controller");
      Path logs = dir.resolve("log");
      Properties config = config(logs, port, controllerPort);
      KafkaConfig kafkaConfig = KafkaConfig.fromProps(config, false);
      if (!Files.exists(logs.resolve("meta.properties"))) {
        format(kafkaConfig, logs);
      }
      ports.setProperty("broker", String.valueOf(port));
      ports.setProperty("controller", String.valueOf(controllerPort));
      try (OutputStream out = Files.newOutputStream(dir.resolve(PORTS))) {
        ports.store(out, "The ports of the broker of this folder, taken again when free");
      }
      KafkaRaftServer server = new KafkaRaftServer(kafkaConfig, Time.SYSTEM);
      server.startup();
      log.info("Started Kafka on 127.0.0.1:{} (data in {})", port, dir);
      return new EmbeddedKafka(server, port);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot prepare Kafka's folder " + dir, e);
    }
  }

  /** {@code host:port}, what a client's {@code bootstrap.servers} names. */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  /** Stops the broker and waits until it has stopped. */
  @Override
  public synchronized void close() {
    server.shutdown();
    server.awaitShutdown();
  }

  private static Properties config(Path logs, int port, int controllerPort) {
    Properties config = new Properties();
    config.setProperty("process.roles", "broker,controller");
    config.setProperty("node.id", "1");
    config.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    config.setProperty(
        "listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    config.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    config.setProperty("controller.listener.names", "CONTROLLER");
    config.setProperty("inter.broker.listener.name", "PLAINTEXT");
    config.setProperty(
        "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    config.setProperty("log.dirs", logs.toAbsolutePath().toString());
    config.setProperty("num.partitions", "1");
    config.setProperty("offsets.topic.replication.factor", "1");
    config.setProperty("offsets.topic.num.partitions", "1");
    config.setProperty("transaction.state.log.replication.factor", "1");
    config.setProperty("transaction.state.log.min.isr", "1");
    config.setProperty("transaction.state.log.num.partitions", "1");
    config.setProperty("share.coordinator.state.topic.replication.factor", "1");
    config.setProperty("share.coordinator.state.topic.min.isr", "1");
    config.setProperty("group.initial.rebalance.delay.ms", "0");
    config.setProperty("auto.create.topics.enable", "false");
    return config;
  }

  private static void format(KafkaConfig config, Path logs) {
    try {
      new Formatter()
          .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
          .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
          .setNodeId(config.nodeId())
          .setClusterId(Uuid.randomUuid().toString())
          .setControllerListenerName("CONTROLLER")
          .setMetadataLogDirectory(logs.toAbsolutePath().toString())
          .addDirectory(logs.toAbsolutePath().toString())
          .run();
    } catch (Exception e) {
      throw new IllegalStateException("Cannot format Kafka's log folder " + logs, e);
    }
  }

  private static Properties ports(Path dir) throws IOException {
    Properties ports = new Properties();
    Path file = dir.resolve(PORTS);
    if (Files.exists(file)) {
      try (InputStream in = Files.newInputStream(file)) {
        ports.load(in);
      }
    }
    return ports;
  }

  /** The port used last under {@code name} when it is free, else a free one. */
  private static int port(Properties ports, String name) throws IOException {
    int last = Integer.parseInt(ports.getProperty(name, "0"));
    if (last > 0 && !LocalInfrastructure.answers("127.0.0.1", last)) {
      return last;
    }
    return EmbeddedRedis.freePort();
  }
}
