package io.stockade.platform.eventstore;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.hibernate.dialect.DatabaseVersion;
import org.hibernate.dialect.Dialect;
import org.hibernate.dialect.MariaDBDialect;
import org.hibernate.engine.jdbc.dialect.spi.DialectResolutionInfo;
import org.hibernate.engine.jdbc.dialect.spi.DialectResolver;

/**
 * Recognises MariaDB behind mysql-connector-j.
 *
 * <p>The MySQL driver reports MariaDB 10.11 as version {@code 5.5.5-10.11.x-MariaDB}, so Hibernate
 * would pick the MySQL dialect for "MySQL 5.5" and emit MySQL-8-only SQL ({@code FOR UPDATE OF})
 * that MariaDB rejects: Axon's token claims would then fail forever. Returns {@code null} for
 * anything else, leaving real MySQL to Hibernate's own detection.
 */
public final class MariaDbDialectResolver implements DialectResolver {

  private static final Pattern MARIADB_VERSION =
      Pattern.compile("(?:5\\.5\\.5-)?(\\d+)\\.(\\d+)(?:\\.(\\d+))?.*MariaDB.*");

  @Override
  public Dialect resolveDialect(DialectResolutionInfo info) {
    DatabaseVersion version = mariaDbVersion(info.getDatabaseVersion());
    return version == null ? null : new MariaDBDialect(version);
  }

  static DatabaseVersion mariaDbVersion(String reported) {
    if (reported == null) {
      return null;
    }
    Matcher matcher = MARIADB_VERSION.matcher(reported);
    if (!matcher.matches()) {
      return null;
    }
    int micro = matcher.group(3) == null ? 0 : Integer.parseInt(matcher.group(3));
    return DatabaseVersion.make(
        Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)), micro);
  }
}
