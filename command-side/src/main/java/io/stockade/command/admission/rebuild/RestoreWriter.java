package io.stockade.command.admission.rebuild;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.stockade.command.admission.redis.GateLayout;
import io.stockade.command.admission.redis.GateLayout.Partition;
import io.stockade.command.admission.redis.GateScripts;
import io.stockade.platform.concurrent.DaemonThreads;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A rebuild's writes to one partition (restore.lua): operations on the partition's keys batched
 * into calls of at most {@link #MAX_KEYS} keys and {@link #MAX_ARGS} arguments, an operation of
 * more than {@link #MAX_OPERATION_ARGS} arguments split first, so that every call stays within
 * Lua's and Redis's limits whatever the record holds. Every call renews the lease and stops the
 * rebuild once another one has taken over (the call then wrote nothing).
 *
 * <p>The batches of writes go out through the rebuild's {@link Calls}, several at a time: while
 * Redis runs them, the rebuild builds the next. BEGIN and OPEN wait until every batch sent before
 * them has been run.
 */
final class RestoreWriter {

  /**
   * A rebuild's batches of restore.lua writes, sent in order on one Lettuce connection (the
   * factory's shared one, unless it hands each caller its own), up to {@link #IN_FLIGHT} at a time:
   * Redis runs one after the other, in the order sent, without waiting for the rebuild to build or
   * send the next. The arguments are encoded on a thread of the calls' own. A batch that fails (or
   * finds the rebuild taken over) fails the next send or {@link #await}.
   */
  static final class Calls implements AutoCloseable {

    /**
     * Batches sent and not yet answered: enough that Redis always has the next one when it ends
     * one, few enough that what the rebuild holds in memory stays a few batches'.
     */
    static final int IN_FLIGHT = 4;

    private final ExecutorService thread =
        Executors.newSingleThreadExecutor(DaemonThreads.named("gate-rebuild-writer"));
    private final Semaphore outstanding = new Semaphore(IN_FLIGHT);
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private final RedisConnection connection;
    private final RedisClusterAsyncCommands<byte[], byte[]> commands;
    private final Duration timeout;

    @SuppressWarnings("unchecked")
    Calls(StringRedisTemplate redis) {
      RedisConnectionFactory factory = redis.getRequiredConnectionFactory();
      this.timeout =
          factory instanceof LettuceConnectionFactory lettuce
              ? lettuce.getClientConfiguration().getCommandTimeout()
              : Duration.ofSeconds(60);
      this.connection = factory.getConnection();
      if (!(connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> async)) {
        connection.close();
        throw new IllegalStateException("The gate's Redis is not reached through Lettuce");
      }
      this.commands = (RedisClusterAsyncCommands<byte[], byte[]>) async;
    }

    /**
     * Sends a WRITE of {@code keys} and {@code args} (restore.lua's, the epoch's first) once fewer
     * than {@link #IN_FLIGHT} batches are unanswered.
     */
    void send(long epoch, List<String> keys, List<String> args) {
      rethrow();
      acquire(1);
      try {
        thread.execute(() -> dispatch(epoch, keys, args));
      } catch (RuntimeException e) {
        outstanding.release();
        throw e;
      }
    }

    /** Waits until every batch sent has been run. */
    void await() {
      acquire(IN_FLIGHT);
      outstanding.release(IN_FLIGHT);
      rethrow();
    }

    private void dispatch(long epoch, List<String> keys, List<String> args) {
      try {
        commands
            .<List<Object>>eval(
                RESTORE.getScriptAsString(), ScriptOutputType.MULTI, encoded(keys), encoded(args))
            .whenComplete(
                (reply, error) -> {
                  if (error != null) {
                    fail(
                        error instanceof RuntimeException runtime
                            ? runtime
                            : new IllegalStateException(error));
                  } else if (((Number) reply.get(0)).longValue() != 1) {
                    fail(new RebuildLease.TakenOverException(epoch));
                  }
                  outstanding.release();
                });
      } catch (RuntimeException e) {
        fail(e);
        outstanding.release();
      }
    }

    private static byte[][] encoded(List<String> values) {
      byte[][] encoded = new byte[values.size()][];
      for (int i = 0; i < encoded.length; i++) {
        encoded[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
      }
      return encoded;
    }

    private void fail(RuntimeException e) {
      failure.compareAndSet(null, e);
    }

    private void rethrow() {
      RuntimeException failed = failure.get();
      if (failed != null) {
        throw failed;
      }
    }

    private void acquire(int permits) {
      try {
        if (!outstanding.tryAcquire(permits, timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new QueryTimeoutException("Redis did not run a rebuild's writes within " + timeout);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while Redis ran a rebuild's writes", e);
      }
    }

    @Override
    public void close() {
      thread.shutdownNow();
      connection.close();
    }
  }

  /** Keys in one restore.lua call. */
  static final int MAX_KEYS = 500;

  /**
   * Arguments in one restore.lua call: each call stays far below what Redis takes in one request
   * and what a script can work through quickly, whatever the record holds.
   */
  static final int MAX_ARGS = 4000;

  /** Arguments of one operation: a SKU's thousands of holders are written over several HSETs. */
  static final int MAX_OPERATION_ARGS = 1000;

  private static final RedisScript<List<Object>> RESTORE = GateScripts.load("restore");

  private final StringRedisTemplate redis;
  private final Partition partition;
  private final long epoch;
  private final RebuildLease lease;
  private final Calls calls;
  private final List<String> keys = new ArrayList<>();
  private final List<String> operations = new ArrayList<>();

  RestoreWriter(
      StringRedisTemplate redis, Partition partition, long epoch, RebuildLease lease, Calls calls) {
    this.redis = redis;
    this.partition = partition;
    this.epoch = epoch;
    this.lease = lease;
    this.calls = calls;
  }

  Partition partition() {
    return partition;
  }

  /** One operation of a few arguments (SET, PEXPIRE, UNLINK, an intent's HSET). */
  void add(String name, String key, String... args) {
    if (args.length > MAX_OPERATION_ARGS) {
      throw new IllegalArgumentException(name + " of " + args.length + " arguments");
    }
    operation(name, key, Arrays.asList(args));
  }

  /** HSET (or ZADD) of any number of pairs, in operations of bounded size. */
  void addPairs(String name, String key, Map<String, ?> pairs) {
    List<String> args = new ArrayList<>(Math.min(2 * pairs.size(), MAX_OPERATION_ARGS));
    for (Map.Entry<String, ?> pair : pairs.entrySet()) {
      args.add(pair.getKey());
      args.add(String.valueOf(pair.getValue()));
      if (args.size() >= MAX_OPERATION_ARGS) {
        operation(name, key, args);
        args.clear();
      }
    }
    if (!args.isEmpty()) {
      operation(name, key, args);
    }
  }

  private void operation(String name, String key, List<String> args) {
    if (keys.size() + 1 > MAX_KEYS || operations.size() + 3 + args.size() > MAX_ARGS) {
      flush();
    }
    keys.add(key);
    operations.add(name);
    operations.add(String.valueOf(keys.size() + 1));
    operations.add(String.valueOf(args.size()));
    operations.addAll(args);
  }

  /** Sends what is gathered; {@link Calls#await} then waits until Redis has run it. */
  void flush() {
    if (!keys.isEmpty()) {
      send();
    }
  }

  void open(String runId, GateLayout layout) {
    List<String> args = new ArrayList<>();
    args.add(runId);
    args.add(String.valueOf(layout.partitions().size()));
    args.add(layout.placement());
    args.addAll(operations);
    call("OPEN", keys, args);
  }

  /** Runs one call of restore.lua now, after every batch sent before it. */
  void call(String mode, List<String> batchKeys, List<String> args) {
    calls.await();
    lease.renew();
    List<String> allKeys = new ArrayList<>(batchKeys.size() + 1);
    allKeys.add(partition.marker());
    allKeys.addAll(batchKeys);
    Object[] allArgs = new Object[args.size() + 2];
    allArgs[0] = String.valueOf(epoch);
    allArgs[1] = mode;
    for (int i = 0; i < args.size(); i++) {
      allArgs[i + 2] = args.get(i);
    }
    keys.clear();
    operations.clear();
    List<Object> reply = redis.execute(RESTORE, allKeys, allArgs);
    if (((Number) reply.get(0)).longValue() != 1) {
      throw new RebuildLease.TakenOverException(epoch);
    }
  }

  /** Sends the batch of writes gathered so far, to be run while the next is gathered. */
  private void send() {
    lease.renew();
    List<String> allKeys = new ArrayList<>(keys.size() + 1);
    allKeys.add(partition.marker());
    allKeys.addAll(keys);
    List<String> allArgs = new ArrayList<>(operations.size() + 2);
    allArgs.add(String.valueOf(epoch));
    allArgs.add("WRITE");
    allArgs.addAll(operations);
    keys.clear();
    operations.clear();
    calls.send(epoch, allKeys, allArgs);
  }
}
