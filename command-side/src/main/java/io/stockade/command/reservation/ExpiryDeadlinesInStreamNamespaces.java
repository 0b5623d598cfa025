package io.stockade.command.reservation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.sku.SkuEvent;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import org.axonframework.deadline.dbscheduler.DbSchedulerBinaryDeadlineDetails;
import org.axonframework.modelling.command.AggregateScopeDescriptor;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The companion of the event store's migration 1.1 (stream identifiers by aggregate type) for the
 * deadlines: a pending expiry names its reservation's stream in its task data, so one scheduled
 * before that migration names the bare id, which no longer loads. This rewrites the scope's
 * identifier of every pending Axon deadline into its type's namespace; the rest of the task stays
 * byte for byte as Axon wrote it. Task data is Java-serialized by db-scheduler (its default), the
 * scope inside it serialized by Axon's Jackson serializer, hence a Java migration. Idempotent.
 */
@Component
class ExpiryDeadlinesInStreamNamespaces implements JavaMigration {

  private static final Logger log =
      LoggerFactory.getLogger(ExpiryDeadlinesInStreamNamespaces.class);

  /** db-scheduler's name for the tasks of Axon's {@code DbSchedulerDeadlineManager}. */
  static final String DEADLINE_TASK = "AxonDeadline";

  private static final Map<String, String> PREFIXES =
      Map.of(
          Reservation.class.getSimpleName(),
          ReservationEvent.STREAM_PREFIX,
          "Sku",
          SkuEvent.STREAM_PREFIX);

  private final ObjectMapper json = new ObjectMapper();

  @Override
  public MigrationVersion getVersion() {
    return MigrationVersion.fromVersion("102");
  }

  @Override
  public String getDescription() {
    return "expiry deadlines in stream namespaces";
  }

  @Override
  public Integer getChecksum() {
    return 1;
  }

  @Override
  public boolean canExecuteInTransaction() {
    return true;
  }

  @Override
  public void migrate(Context context) throws SQLException, IOException {
    Connection connection = context.getConnection();
    int moved = 0;
    try (PreparedStatement select =
            connection.prepareStatement(
                "select task_instance, task_data from scheduled_tasks where task_name = ?"
                    + " for update");
        PreparedStatement update =
            connection.prepareStatement(
                "update scheduled_tasks set task_data = ? where task_name = ? and task_instance = ?")) {
      select.setString(1, DEADLINE_TASK);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          byte[] rewritten = rewritten(rows.getString(1), rows.getBytes(2));
          if (rewritten != null) {
            update.setBytes(1, rewritten);
            update.setString(2, DEADLINE_TASK);
            update.setString(3, rows.getString(1));
            update.executeUpdate();
            moved++;
          }
        }
      }
    }
    if (moved > 0) {
      log.info(
          "{} pending deadlines now name their stream in its aggregate type's namespace", moved);
    }
  }

  /** The task data with the scope in its namespace, or null when it needs no change. */
  private byte[] rewritten(String instance, byte[] data) throws IOException {
    if (data == null) {
      return null;
    }
    Object task;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(data))) {
      task = in.readObject();
    } catch (ClassNotFoundException | IOException e) {
      log.warn("Deadline {} has task data this migration does not know; left as it is", instance);
      return null;
    }
    if (!(task instanceof DbSchedulerBinaryDeadlineDetails details)
        || !AggregateScopeDescriptor.class.getName().equals(details.getSc())) {
      return null;
    }
    JsonNode scope = json.readTree(details.getS());
    String prefix = PREFIXES.get(scope.path("type").asText());
    JsonNode identifier = scope.path("identifier");
    if (prefix == null || !identifier.isTextual() || identifier.asText().startsWith(prefix)) {
      return null;
    }
    ((ObjectNode) scope).put("identifier", prefix + identifier.asText());
    DbSchedulerBinaryDeadlineDetails moved =
        new DbSchedulerBinaryDeadlineDetails(
            details.getD(),
            json.writeValueAsBytes(scope),
            details.getSc(),
            details.getP(),
            details.getPc(),
            details.getR(),
            details.getM());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(moved);
    }
    return bytes.toByteArray();
  }
}
