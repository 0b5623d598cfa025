package io.stockade.bench.http;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.UUID;

/** The content of a StockReserved event as the service stored it, to insert again and again. */
record EventRow(
    String type, byte[] metaData, byte[] payload, String payloadType, String payloadRevision) {

  static final String INSERT_COLUMNS =
      "(aggregate_identifier, sequence_number, type, event_identifier, meta_data, payload,"
          + " payload_revision, payload_type, time_stamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";

  /** The latest StockReserved event of the database: run after the reservation workloads. */
  static EventRow sampleOf(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery(
                "SELECT type, meta_data, payload, payload_type, payload_revision"
                    + " FROM domain_event_entry WHERE payload_type LIKE '%StockReserved'"
                    + " ORDER BY global_index DESC LIMIT 1")) {
      if (!row.next()) {
        throw new IllegalStateException(
            "no StockReserved event in domain_event_entry to copy: reserve some stock first");
      }
      return new EventRow(
          row.getString(1), row.getBytes(2), row.getBytes(3), row.getString(4), row.getString(5));
    }
  }

  /** Binds a new event of this content, the first of a new aggregate, as Axon appends one. */
  void bind(PreparedStatement insert) throws SQLException {
    // A reservation's stream, as the service names it (ReservationEvent.streamId).
    String aggregate = "reservation:" + UUID.randomUUID();
    insert.setString(1, aggregate);
    insert.setLong(2, 0);
    insert.setString(3, type);
    insert.setString(4, UUID.randomUUID().toString());
    insert.setBytes(5, metaData);
    insert.setBytes(6, payload);
    insert.setString(7, payloadRevision);
    insert.setString(8, payloadType);
    insert.setString(9, Instant.now().toString());
  }
}
