package io.stockade.localinfra;

/** Where a Redis and a MariaDB answer. */
public record Endpoints(String redisHost, int redisPort, String databaseHost, int databasePort) {

  /** A JDBC URL for {@code database} on this MariaDB, created on first connection. */
  public String jdbcUrl(String database) {
    return jdbcUrl(databaseHost, databasePort, database, true);
  }

  /**
   * A JDBC URL for a MariaDB ({@code mariaDb}) or MySQL server. MariaDB gets its own driver: the
   * MySQL one takes it for MySQL 5.5 and drops fractional seconds.
   */
  static String jdbcUrl(String host, int port, String database, boolean mariaDb) {
    String options =
        "?createDatabaseIfNotExist=true&connectionTimeZone=UTC&forceConnectionTimeZoneToSession=true";
    return mariaDb
        ? "jdbc:mariadb://" + host + ":" + port + "/" + database + options
        : "jdbc:mysql://"
            + host
            + ":"
            + port
            + "/"
            + database
            + options
            + "&rewriteBatchedStatements=true";
  }
}
