package io.stockade.platform.testing;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.sku.SkuEvent;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.UUID;

/**
 * The event store the benchmarks that fold the whole store run on ({@code bench/replay}, {@code
 * bench/gate-rebuild}), written straight into the event table as Axon's JPA storage engine stores
 * it, and the plain scan of that table they are measured against.
 */
public final class GeneratedEventStore {

  private GeneratedEventStore() {}

  /**
   * Writes {@code events} rows: registrations of {@code skus} SKUs, then reservations of one unit
   * (users {@code u-0} to {@code u-4999}), a third of them confirmed and a third released (Jackson
   * payloads, ISO timestamps from 2026-11-30T10:00:00Z on), 5,000 rows a transaction.
   */
  public static void write(Connection connection, int events, int skus) throws SQLException {
    write(connection, events, skus, false);
  }

  /**
   * {@link #write(Connection, int, int)}, the reservations identified by random UUIDs when {@code
   * randomIds} (as clients that make their identifiers up send them), by {@code bench-R-<n>}
   * otherwise, which sort about in the order they are written.
   */
  public static void write(Connection connection, int events, int skus, boolean randomIds)
      throws SQLException {
    write(connection, events, skus, randomIds, 0);
  }

  /**
   * {@link #write(Connection, int, int, boolean)}, each confirmation or release stored {@code
   * later} reservations after its reservation (0: right after it). A shop's buyers pay minutes
   * after they reserve, and unpaid holds expire after their hold: in a sale taking a reservation a
   * millisecond, a minute is 60,000 reservations. Events still due at the end are not written.
   */
  public static void write(
      Connection connection, int events, int skus, boolean randomIds, int later)
      throws SQLException {
    connection.setAutoCommit(false);
    String sql =
        "insert into domain_event_entry (aggregate_identifier, sequence_number, type,"
            + " event_identifier, meta_data, payload, payload_revision, payload_type, time_stamp)"
            + " values (?, ?, ?, ?, ?, ?, null, ?, ?)";
    Instant t0 = Instant.parse("2026-11-30T10:00:00Z");
    int written = 0;
    int batched = 0;
    Deque<FollowUp> due = new ArrayDeque<>();
    try (PreparedStatement insert = connection.prepareStatement(sql)) {
      for (int s = 0; s < skus && written < events; s++, written++, batched++) {
        String sku = "bench-sku-" + s;
        add(
            insert,
            sku,
            0,
            "Sku",
            "{\"skuId\":\"" + sku + "\",\"initialStock\":1000000000,\"perUserLimit\":null}",
            "io.stockade.api.sku.SkuRegistered",
            t0);
      }
      int reservation = 0;
      while (written < events) {
        Instant at = t0.plusMillis(reservation);
        while (!due.isEmpty() && due.peek().at() <= reservation && written < events) {
          due.poll().add(insert, at);
          written++;
          batched++;
        }
        if (written >= events) {
          break;
        }
        String id = randomIds ? UUID.randomUUID().toString() : "bench-R-" + reservation;
        String sku = "bench-sku-" + (reservation % skus);
        String lines = "[{\"skuId\":\"" + sku + "\",\"quantity\":1}]";
        String user = "u-" + (reservation % 5000);
        addReserved(insert, id, user, lines, at, reservation + 1);
        written++;
        batched++;
        if (reservation % 3 != 2) {
          FollowUp followUp =
              new FollowUp(
                  id, reservation(id, user, lines), reservation % 3 == 0, reservation + later);
          if (later == 0) {
            if (written < events) {
              followUp.add(insert, at.plusMillis(1));
              written++;
              batched++;
            }
          } else {
            due.add(followUp);
          }
        }
        reservation++;
        if (batched >= 5000) {
          insert.executeBatch();
          connection.commit();
          batched = 0;
        }
      }
      insert.executeBatch();
      connection.commit();
    }
  }

  /** Registers {@code skus} SKUs {@code bench-sku-<n>} of a billion units each, no limit. */
  public static void registerSkus(Connection connection, int skus) throws SQLException {
    connection.setAutoCommit(false);
    try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
      for (int s = 0; s < skus; s++) {
        String sku = "bench-sku-" + s;
        add(
            insert,
            sku,
            0,
            "Sku",
            "{\"skuId\":\"" + sku + "\",\"initialStock\":1000000000,\"perUserLimit\":null}",
            "io.stockade.api.sku.SkuRegistered",
            T0);
      }
      insert.executeBatch();
      connection.commit();
    }
  }

  /**
   * Appends {@code count} reservations of one unit of the SKUs {@link #registerSkus} registered
   * ({@code <prefix>-<n>}, users {@code u-0} to {@code u-4999}, admission sequences from {@code
   * firstSequence}), a millisecond apart from 2026-11-30T10:00:00Z (long before any intent
   * retention): when {@code ended}, each confirmed or released (alternately) right after it, two
   * events; otherwise left held, one event. 5,000 rows a transaction.
   */
  public static void appendReservations(
      Connection connection, String prefix, int count, int skus, boolean ended, long firstSequence)
      throws SQLException {
    connection.setAutoCommit(false);
    int batched = 0;
    try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
      for (int r = 0; r < count; r++) {
        Instant at = T0.plusMillis(r);
        String id = prefix + "-" + r;
        String lines = "[{\"skuId\":\"bench-sku-" + (r % skus) + "\",\"quantity\":1}]";
        String user = "u-" + (r % 5000);
        addReserved(insert, id, user, lines, at, firstSequence + r);
        batched++;
        if (ended) {
          new FollowUp(id, reservation(id, user, lines), r % 2 == 0, 0)
              .add(insert, at.plusMillis(1));
          batched++;
        }
        if (batched >= 5000) {
          insert.executeBatch();
          connection.commit();
          batched = 0;
        }
      }
      insert.executeBatch();
      connection.commit();
    }
  }

  /** A reservation's StockReserved, held 900 s, admitted in gate epoch 1. */
  private static void addReserved(
      PreparedStatement insert, String id, String user, String lines, Instant at, long sequence)
      throws SQLException {
    add(
        insert,
        id,
        0,
        "Reservation",
        reservation(id, user, lines)
            + ",\"reservedAt\":\""
            + at
            + "\",\"expiresAt\":\""
            + at.plusSeconds(900)
            + "\",\"admissionSequence\":"
            + sequence
            + ",\"gateEpoch\":1}",
        "io.stockade.api.reservation.StockReserved",
        at);
  }

  private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

  private static final String INSERT =
      "insert into domain_event_entry (aggregate_identifier, sequence_number, type,"
          + " event_identifier, meta_data, payload, payload_revision, payload_type, time_stamp)"
          + " values (?, ?, ?, ?, ?, ?, null, ?, ?)";

  /** A reservation's confirmation or release, due once reservation {@code at} is written. */
  private record FollowUp(String id, String reservation, boolean confirmed, long at) {

    void add(PreparedStatement insert, Instant time) throws SQLException {
      GeneratedEventStore.add(
          insert,
          id,
          1,
          "Reservation",
          confirmed
              ? reservation + ",\"confirmedAt\":\"" + time + "\"}"
              : reservation + ",\"reason\":\"CANCELLED\",\"releasedAt\":\"" + time + "\"}",
          confirmed
              ? "io.stockade.api.reservation.StockConfirmed"
              : "io.stockade.api.reservation.StockReleased",
          time);
    }
  }

  /** Reads every column of every row, in global-index order; rows per second. */
  public static double scan(Connection connection) throws SQLException {
    long started = System.nanoTime();
    long rows = 0;
    long bytes = 0;
    try (Statement statement =
        connection.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      statement.setFetchSize(1000);
      try (ResultSet rs =
          statement.executeQuery(
              "select global_index, aggregate_identifier, sequence_number, type,"
                  + " event_identifier, meta_data, payload, payload_revision, payload_type,"
                  + " time_stamp from domain_event_entry order by global_index")) {
        while (rs.next()) {
          rows++;
          bytes += rs.getBytes(7).length + rs.getString(10).length();
        }
      }
    }
    if (bytes == 0) {
      throw new IllegalStateException("Scanned nothing");
    }
    return rows / ((System.nanoTime() - started) / 1e9);
  }

  private static void add(
      PreparedStatement insert,
      String aggregate,
      long sequence,
      String type,
      String payload,
      String payloadType,
      Instant at)
      throws SQLException {
    // Each aggregate type's streams in its own namespace, as the command side writes them.
    insert.setString(
        1,
        "Sku".equals(type) ? SkuEvent.streamId(aggregate) : ReservationEvent.streamId(aggregate));
    insert.setLong(2, sequence);
    insert.setString(3, type);
    insert.setString(4, UUID.randomUUID().toString());
    insert.setBytes(5, "{}".getBytes(StandardCharsets.UTF_8));
    insert.setBytes(6, payload.getBytes(StandardCharsets.UTF_8));
    insert.setString(7, payloadType);
    insert.setString(8, at.toString());
    insert.addBatch();
  }

  /** The members every reservation event's JSON begins with, up to its own ones. */
  private static String reservation(String id, String user, String lines) {
    return "{\"reservationId\":\"" + id + "\",\"userId\":\"" + user + "\",\"lines\":" + lines;
  }
}
