package io.stockade.bench.engines;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The benchmark's own MariaDB database ({@value #NAME}), created at the start and dropped at the
 * end, with one InnoDB table {@code bench_stock}: a row per SKU and its available units. Setting up
 * and reading rounds goes through one connection of its own; engines get pools.
 */
final class BenchDatabase implements AutoCloseable {

  static final String NAME = "stockade_bench_engines";

  private final String host;
  private final int port;
  private final String user;
  private final String password;
  private final Connection admin;

  BenchDatabase(String host, int port, String user, String password) throws SQLException {
    this.host = host;
    this.port = port;
    this.user = user;
    this.password = password;
    admin =
        DriverManager.getConnection("jdbc:mariadb://" + host + ":" + port + "/", user, password);
    try (Statement statement = admin.createStatement()) {
      statement.execute("DROP DATABASE IF EXISTS " + NAME);
      statement.execute("CREATE DATABASE " + NAME);
      statement.execute("USE " + NAME);
      statement.execute(
          "CREATE TABLE bench_stock (sku VARCHAR(100) PRIMARY KEY, available BIGINT NOT NULL)"
              + " ENGINE=InnoDB");
    }
  }

  /**
   * A pool of {@code size} connections, all opened before it is returned, so that no round pays for
   * opening them.
   */
  HikariDataSource pool(String name, int size, boolean autoCommit) throws InterruptedException {
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl("jdbc:mariadb://" + host + ":" + port + "/" + NAME);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(size);
    config.setAutoCommit(autoCommit);
    HikariDataSource pool = new HikariDataSource(config);
    while (pool.getHikariPoolMXBean().getTotalConnections() < size) {
      Thread.sleep(10);
    }
    return pool;
  }

  synchronized void stock(String sku, long units) throws SQLException {
    try (PreparedStatement insert =
        admin.prepareStatement("INSERT INTO bench_stock (sku, available) VALUES (?, ?)")) {
      insert.setString(1, sku);
      insert.setLong(2, units);
      insert.executeUpdate();
    }
  }

  synchronized long available(String sku) throws SQLException {
    try (PreparedStatement select =
        admin.prepareStatement("SELECT available FROM bench_stock WHERE sku = ?")) {
      select.setString(1, sku);
      try (ResultSet row = select.executeQuery()) {
        if (!row.next()) {
          throw new IllegalStateException("No bench_stock row for " + sku);
        }
        return row.getLong(1);
      }
    }
  }

  /** Server version and the settings that decide its write throughput. */
  synchronized String describe() throws SQLException {
    try (Statement statement = admin.createStatement();
        ResultSet row =
            statement.executeQuery(
                "SELECT VERSION(), @@innodb_flush_log_at_trx_commit, @@tx_isolation,"
                    + " @@innodb_buffer_pool_size")) {
      row.next();
      return String.format(
          "MariaDB %s at %s:%d (innodb_flush_log_at_trx_commit=%s, %s, buffer pool %d MiB;"
              + " driver %s)",
          row.getString(1),
          host,
          port,
          row.getString(2),
          row.getString(3),
          row.getLong(4) >> 20,
          admin.getMetaData().getDriverVersion());
    }
  }

  /** Drops the database. */
  @Override
  public synchronized void close() throws SQLException {
    try (Statement statement = admin.createStatement()) {
      statement.execute("DROP DATABASE IF EXISTS " + NAME);
    } finally {
      admin.close();
    }
  }
}
