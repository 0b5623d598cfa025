package io.stockade.system;

import io.stockade.client.ClientSettings;
import io.stockade.client.CommandClient;
import io.stockade.client.QueryClient;
import io.stockade.client.RetryPolicy;
import io.stockade.localinfra.EmbeddedRedis;
import io.stockade.platform.testing.TestTokens;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A command side and a query side launched from their packaged jars on a Redis of their own
 * (embedded) and a database of their own, for the Java client's tests; clients of both with the
 * token of each role.
 */
final class ClientSystem implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(300);

  /** A user's bucket: a burst of this many reservations, then one every 5 s. */
  static final int USER_BURST = 3;

  private final SystemServices system;
  private final SystemDatabase database;
  private final EmbeddedRedis redis;
  private final ServiceProcess command;
  private final ServiceProcess query;

  private ClientSystem(
      SystemServices system,
      SystemDatabase database,
      EmbeddedRedis redis,
      ServiceProcess command,
      ServiceProcess query) {
    this.system = system;
    this.database = database;
    this.redis = redis;
    this.command = command;
    this.query = query;
  }

  static ClientSystem start(String run, String databaseName) throws Exception {
    return start(run, () -> SystemDatabase.create(databaseName));
  }

  /** On a database as it is, such as one restored from a backup, and a new Redis. */
  static ClientSystem startOnExisting(String run, String databaseName) throws Exception {
    return start(run, () -> SystemDatabase.existing(databaseName));
  }

  private interface DatabaseSource {
    SystemDatabase open() throws Exception;
  }

  private static ClientSystem start(String run, DatabaseSource source) throws Exception {
    SystemServices system = new SystemServices(run);
    SystemDatabase database = null;
    EmbeddedRedis redis = null;
    try {
      database = source.open();
      redis = EmbeddedRedis.start(SystemServices.WORK.resolve("redis-" + run));
      List<String> common = new ArrayList<>(database.serviceArguments());
      common.add("--spring.data.redis.host=127.0.0.1");
      common.add("--spring.data.redis.port=" + redis.port());
      List<String> commandArguments = new ArrayList<>(common);
      // Small user buckets, so that a test can meet a 429 of the real rate limits.
      commandArguments.add("--stockade.rate-limit.enabled=true");
      commandArguments.add("--stockade.rate-limit.user.capacity=" + USER_BURST);
      commandArguments.add("--stockade.rate-limit.user.refill-per-second=0.2");
      List<String> queryArguments = new ArrayList<>(common);
      queryArguments.add("--stockade.reconciliation.interval=0s");
      ServiceProcess command = system.service("command-side", "command-side", commandArguments);
      ServiceProcess query = system.service("query-side", "query-side", queryArguments);
      // One at a time: two JVMs starting together on two cores can slow a first statement beyond
      // the services' transaction timeout.
      for (ServiceProcess service : List.of(command, query)) {
        service.launch();
        service.awaitReady(START_TIMEOUT);
      }
      return new ClientSystem(system, database, redis, command, query);
    } catch (Throwable failure) {
      system.printLogs();
      system.close();
      if (redis != null) {
        redis.close();
      }
      if (database != null) {
        database.close();
      }
      throw failure;
    }
  }

  /** The command side with a token of these roles, retrying as {@code retries} allows. */
  CommandClient commands(RetryPolicy retries, String... roles) {
    return CommandClient.at(
        URI.create("http://127.0.0.1:" + command.port()),
        ClientSettings.bearer(TestTokens.withRoles(roles)).withRetries(retries));
  }

  /** The command side with these settings' retries and listener, and a {@code client} token. */
  CommandClient commands(ClientSettings settings) {
    return CommandClient.at(URI.create("http://127.0.0.1:" + command.port()), settings);
  }

  QueryClient queries(String... roles) {
    return QueryClient.at(
        URI.create("http://127.0.0.1:" + query.port()),
        ClientSettings.bearer(TestTokens.withRoles(roles)));
  }

  /** The database server's address, {@code host:port}. */
  String databaseServer() {
    return database.server();
  }

  void printLogs() {
    system.printLogs();
  }

  @Override
  public void close() {
    system.close();
    redis.close();
    database.close();
  }
}
