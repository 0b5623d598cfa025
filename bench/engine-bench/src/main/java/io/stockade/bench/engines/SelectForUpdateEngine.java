package io.stockade.bench.engines;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * Engine (a): a transaction that locks the SKU's row with {@code SELECT ... FOR UPDATE}, checks,
 * writes the new count with an {@code UPDATE} and commits. Every attempt, refusals too, waits for
 * the row lock.
 */
final class SelectForUpdateEngine extends MariaDbEngine {

  SelectForUpdateEngine(BenchDatabase database, int connections) throws InterruptedException {
    super(database, "select-for-update", connections, false);
  }

  @Override
  public String name() {
    return "select-for-update";
  }

  @Override
  public String description() {
    return "MariaDB: SELECT available ... FOR UPDATE, then UPDATE, one transaction";
  }

  @Override
  public boolean attempt(String sku, String user, long attempt) throws Exception {
    // A connection given back uncommitted (a statement failed) is rolled back by the pool.
    try (Connection connection = pool.getConnection();
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT available FROM bench_stock WHERE sku = ? FOR UPDATE")) {
      select.setString(1, sku);
      long available;
      try (ResultSet row = select.executeQuery()) {
        row.next();
        available = row.getLong(1);
      }
      if (available < 1) {
        connection.commit();
        return false;
      }
      try (PreparedStatement update =
          connection.prepareStatement("UPDATE bench_stock SET available = ? WHERE sku = ?")) {
        update.setLong(1, available - 1);
        update.setString(2, sku);
        update.executeUpdate();
      }
      connection.commit();
      return true;
    }
  }
}
