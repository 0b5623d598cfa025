package io.stockade.bench.engines;

import java.sql.Connection;
import java.sql.PreparedStatement;

/**
 * Engine (b): one conditional {@code UPDATE} in autocommit; the unit is admitted when it changed
 * the row. InnoDB still serialises every attempt on the row's lock, for the statement only.
 */
final class ConditionalUpdateEngine extends MariaDbEngine {

  ConditionalUpdateEngine(BenchDatabase database, int connections) throws InterruptedException {
    super(database, "conditional-update", connections, true);
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
}
