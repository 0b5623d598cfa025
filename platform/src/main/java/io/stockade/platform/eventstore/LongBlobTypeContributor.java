package io.stockade.platform.eventstore;

import org.hibernate.boot.model.TypeContributions;
import org.hibernate.boot.model.TypeContributor;
import org.hibernate.dialect.Dialect;
import org.hibernate.dialect.MySQLDialect;
import org.hibernate.engine.jdbc.spi.JdbcServices;
import org.hibernate.service.ServiceRegistry;
import org.hibernate.type.SqlTypes;
import org.hibernate.type.descriptor.sql.internal.DdlTypeImpl;

/**
 * On MySQL and MariaDB, maps every {@code @Lob} byte array (Axon's payloads, metadata, tokens,
 * sagas) to {@code LONGBLOB}, the type the Flyway schema gives them. Hibernate would otherwise
 * expect {@code BLOB}, which stops at 64 KB, and schema validation would fail.
 */
public final class LongBlobTypeContributor implements TypeContributor {

  @Override
  public void contribute(TypeContributions contributions, ServiceRegistry serviceRegistry) {
    Dialect dialect = serviceRegistry.requireService(JdbcServices.class).getDialect();
    if (dialect instanceof MySQLDialect) {
      contributions
          .getTypeConfiguration()
          .getDdlTypeRegistry()
          .addDescriptor(new DdlTypeImpl(SqlTypes.BLOB, "longblob", dialect));
    }
  }
}
