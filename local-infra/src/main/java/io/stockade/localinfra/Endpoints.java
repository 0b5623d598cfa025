package io.stockade.localinfra;

/** Where a Redis and a MySQL-protocol database answer. */
public record Endpoints(String redisHost, int redisPort, String databaseHost, int databasePort) {

  /** A JDBC URL for {@code database} on this server, created on first connection. */
  public String jdbcUrl(String database) {
    return jdbcUrl(databaseHost, databasePort, database);
  }

  static String jdbcUrl(String host, int port, String database) {
    return "jdbc:mysql://"
        + host
        + ":"
        + port
        + "/"
        + database
        + "?createDatabaseIfNotExist=true&rewriteBatchedStatements=true"
        + "&connectionTimeZone=UTC&forceConnectionTimeZoneToSession=true";
  }
}
