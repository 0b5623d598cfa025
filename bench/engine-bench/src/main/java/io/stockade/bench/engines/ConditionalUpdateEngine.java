package io.stockade.bench.engines;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;

/**
 * Engine (b): one conditional {@code UPDATE} in autocommit; the unit is admitted when it changed
 * the row. InnoDB still serialises every attempt on the row's lock, for the statement only.
 */
final class ConditionalUpdateEngine implements Engine {

  private final BenchDatabase database;
  private final HikariDataSource pool;

  ConditionalUpdateEngine(BenchDatabase database, int connections) throws InterruptedException {
    this.database = database;
    this.pool = database.pool("conditional-update", connections, true);
  }

  @Override
  public String name() {
    return "conditional-update";
  }

  @Override
  public String description() {
    return "MariaDB: UPDATE ... SET available = available - 1 WHERE ... AND available >= 1";
  }

  @Override
  public void stock(String sku, long units) throws Exception {
    database.stock(sku, units);
  }

  @Override
  public boolean attempt(String sku, String user, long attempt) throws Exception {
    try (Connection connection = pool.getConnection();
        PreparedStatement update =
            connection.prepareStatement(
                "UPDATE bench_stock SET available = available - ? WHERE sku = ? AND available >= ?")) {
      update.setLong(1, 1);
      update.setString(2, sku);
      update.setLong(3, 1);
      // The driver counts matched rows; a matched row always changes here (available drops).
      return update.executeUpdate() == 1;
    }
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
