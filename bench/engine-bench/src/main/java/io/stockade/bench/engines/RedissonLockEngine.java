package io.stockade.bench.engines;

import org.redisson.Redisson;
import org.redisson.api.RAtomicLong;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Engine (c): a Redisson {@link RLock} (non-fair, Redisson's default lock with its watchdog) held
 * around reading, checking and writing a plain Redis counter key. Refusals take the lock too.
 */
final class RedissonLockEngine implements Engine {

  private final RedissonClient redisson;
  private final String prefix;

  /** Redisson's defaults, except a connection pool of {@code connections}, all opened at start. */
  RedissonLockEngine(String host, int port, int connections, String prefix) {
    Config config = new Config();
    config
        .useSingleServer()
        .setAddress("redis://" + host + ":" + port)
        .setConnectionPoolSize(connections)
        .setConnectionMinimumIdleSize(connections);
    this.redisson = Redisson.create(config);
    this.prefix = prefix;
  }

  @Override
  public String name() {
    return "redisson-lock";
  }

  @Override
  public String description() {
    return "Redis: Redisson RLock around GET, check, SET of a counter key";
  }

  @Override
  public void stock(String sku, long units) {
    counter(sku).set(units);
  }

  @Override
  public boolean attempt(String sku, String user, long attempt) {
    RLock lock = redisson.getLock(key(sku, "lock"));
    lock.lock();
    try {
      RAtomicLong counter = counter(sku);
      long available = counter.get();
      if (available < 1) {
        return false;
      }
      counter.set(available - 1);
      return true;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public long taken(String sku, long stocked) {
    return stocked - counter(sku).get();
  }

  /** Deletes the run's keys and shuts Redisson down. */
  @Override
  public void close() {
    try {
      redisson.getKeys().deleteByPattern("bench-engines:{" + prefix + "*");
    } finally {
      redisson.shutdown();
    }
  }

  private RAtomicLong counter(String sku) {
    return redisson.getAtomicLong(key(sku, "available"));
  }

  private static String key(String sku, String what) {
    return "bench-engines:{" + sku + "}:" + what;
  }
}
