package io.stockade.bench.engines;

import com.zaxxer.hikari.HikariDataSource;

/**
 * What the two MariaDB engines share: the SKU's row in {@code bench_stock}, a pool of their own,
 * and the units taken read back from the row.
 */
abstract class MariaDbEngine implements Engine {

  protected final BenchDatabase database;
  protected final HikariDataSource pool;

  MariaDbEngine(BenchDatabase database, String name, int connections, boolean autoCommit)
      throws InterruptedException {
    this.database = database;
    this.pool = database.pool(name, connections, autoCommit);
  }

  @Override
  public void stock(String sku, long units) throws Exception {
    database.stock(sku, units);
  }

  @Override
  public long taken(String sku, long stocked) throws Exception {
    return stocked - database.available(sku);
  }

  @Override
  public void close() {
    pool.close();
  }
}
