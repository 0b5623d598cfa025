package io.stockade.command.admission;

import io.stockade.command.admission.GateLayout.Partition;
import io.stockade.platform.concurrent.DaemonThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A rebuild's writes to one partition (restore.lua): operations on the partition's keys batched
 * into calls of at most {@link #MAX_KEYS} keys and {@link #MAX_ARGS} arguments, an operation of
 * more than {@link #MAX_OPERATION_ARGS} arguments split first, so that every call stays within
 * Lua's and Redis's limits whatever the record holds. Every call renews the lease and stops the
 * rebuild once another one has taken over (the call then wrote nothing).
 *
 * <p>The batches of writes go out through the rebuild's {@link Calls}: while Redis runs one, the
 * rebuild builds the next. BEGIN and OPEN wait until every batch sent before them has been run.
 */
final class RestoreWriter {

  /**
   * A rebuild's calls of restore.lua, in the order sent, on a thread of their own: at most one runs
   * while the next is built. A call that fails (or finds the rebuild taken over) fails the next
   * send or {@link #await}.
   */
  static final class Calls implements AutoCloseable {

    private final ExecutorService thread =
        Executors.newSingleThreadExecutor(DaemonThreads.named("gate-rebuild-writer"));
    private Future<?> running;

    /** Sends {@code call} once the one before it has been run. */
    void send(Runnable call) {
      await();
      running = thread.submit(call);
    }

    /** Waits until every call sent has been run. */
    void await() {
      if (running == null) {
        return;
      }
      try {
        running.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while Redis ran a rebuild's writes", e);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof RuntimeException failure) {
          throw failure;
        }
        throw new IllegalStateException(e.getCause());
      } finally {
        running = null;
      }
    }

    @Override
    public void close() {
      thread.shutdownNow();
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
    operation(name, key, List.of(args));
  }

  /** HSET (or ZADD) of any number of pairs, in operations of bounded size. */
  void addPairs(String name, String key, Map<String, Long> pairs) {
    List<String> args = new ArrayList<>(Math.min(2 * pairs.size(), MAX_OPERATION_ARGS));
    for (Map.Entry<String, Long> pair : pairs.entrySet()) {
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
    Runnable call = prepare(mode, batchKeys, args);
    call.run();
  }

  /** Sends the batch of writes gathered so far, to be run while the next is gathered. */
  private void send() {
    calls.send(prepare("WRITE", keys, operations));
  }

  /** The call, its keys and arguments copied; the batch is emptied. */
  private Runnable prepare(String mode, List<String> batchKeys, List<String> args) {
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
    return () -> {
      List<Object> reply = redis.execute(RESTORE, allKeys, allArgs);
      if (((Number) reply.get(0)).longValue() != 1) {
        throw new RebuildLease.TakenOverException(epoch);
      }
    };
  }
}
