package io.stockade.platform.eventstore;

import static org.assertj.core.api.Assertions.assertThat;

import org.hibernate.dialect.DatabaseVersion;
import org.junit.jupiter.api.Test;

class MariaDbDialectResolverTest {

  @Test
  void readsMariaDbBehindTheMySqlDriversCompatibilityPrefix() {
    DatabaseVersion version =
        MariaDbDialectResolver.mariaDbVersion("5.5.5-10.11.19-MariaDB-0+deb12u1");

    assertThat(version.getDatabaseMajorVersion()).isEqualTo(10);
    assertThat(version.getDatabaseMinorVersion()).isEqualTo(11);
    assertThat(version.getDatabaseMicroVersion()).isEqualTo(19);
  }

  @Test
  void readsMariaDbWithoutPrefix() {
    DatabaseVersion version = MariaDbDialectResolver.mariaDbVersion("11.4.5-MariaDB");

    assertThat(version.getDatabaseMajorVersion()).isEqualTo(11);
    assertThat(version.getDatabaseMinorVersion()).isEqualTo(4);
  }

  @Test
  void leavesMySqlToHibernate() {
    assertThat(MariaDbDialectResolver.mariaDbVersion("8.4.3")).isNull();
    assertThat(MariaDbDialectResolver.mariaDbVersion(null)).isNull();
  }
}
