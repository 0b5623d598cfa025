package io.stockade.command.admission;

import io.stockade.command.admission.GateLayout.Partition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A rebuild's writes to one partition (restore.lua): operations on the partition's keys batched
 * into calls of at most {@link #MAX_KEYS} keys and {@link #MAX_ARGS} arguments, an operation of
 * more than {@link #MAX_OPERATION_ARGS} arguments split first, so that every call stays within
 * Lua's and Redis's limits whatever the record holds. Every call renews the lease and stops the
 * rebuild once another one has taken over (the call then wrote nothing).
 */
final class RestoreWriter {

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
  private final List<String> keys = new ArrayList<>();
  private final List<String> operations = new ArrayList<>();

  RestoreWriter(StringRedisTemplate redis, Partition partition, long epoch, RebuildLease lease) {
    this.redis = redis;
    this.partition = partition;
    this.epoch = epoch;
    this.lease = lease;
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

  void flush() {
    if (!keys.isEmpty()) {
      call("WRITE", keys, operations);
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

  void call(String mode, List<String> batchKeys, List<String> args) {
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
    List<Object> reply = redis.execute(RESTORE, allKeys, allArgs);
    keys.clear();
    operations.clear();
    if (((Number) reply.get(0)).longValue() != 1) {
      throw new RebuildLease.TakenOverException(epoch);
    }
  }
}
