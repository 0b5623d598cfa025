package io.stockade.command.reservation;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventhandling.TrackedEventData;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.jpa.JpaEventStorageEngine;
import org.hibernate.Session;

/**
 * Axon's JPA storage engine as the gate follower reads the store: the events the follower handles,
 * in the order and with the tokens Axon's engine gives them (its gaps and their timeouts
 * unchanged), and of the others, most of the store (a {@code StockReserved} per reservation, a
 * {@code ReservationQueued} and a {@code ReservationDrawn} per queued one), only the last of each
 * page, with an empty payload that nothing deserializes, to carry the page's token: the follower's
 * processor finds no handler for it and moves its token on. A draw of 100,000 or a sale's
 * reservations are then not read back, blobs and all, and handed one by one through Axon's
 * processor (its deserialization, timestamps and scheduling: tens of microseconds an event) only
 * for the follower to ignore them.
 *
 * <p>A page is read in two queries: the events without their payloads, then, when some are handled,
 * those payloads by their global index, in the same transaction.
 */
final class FollowedEventStorage extends JpaEventStorageEngine {

  private static final byte[] NOT_READ = new byte[0];

  private static final String COLUMNS =
      "select global_index, type, aggregate_identifier, sequence_number, event_identifier,"
          + " time_stamp, payload_type, payload_revision, meta_data from domain_event_entry where ";

  private final Predicate<String> handled;

  FollowedEventStorage(JpaEventStorageEngine.Builder builder, Predicate<String> handled) {
    super(builder);
    this.handled = handled;
  }

  /**
   * Whether a payload type names a class one of {@code handler}'s {@code @EventHandler} methods
   * takes (its first parameter's type or a subtype); an unknown type counts as handled, so that its
   * payload is read. Answers are remembered per type.
   */
  static Predicate<String> handledBy(Class<?> handler) {
    List<Class<?>> taken =
        Arrays.stream(handler.getDeclaredMethods())
            .filter(method -> method.isAnnotationPresent(EventHandler.class))
            .filter(method -> method.getParameterCount() > 0)
            .<Class<?>>map(method -> method.getParameterTypes()[0])
            .toList();
    if (taken.isEmpty()) {
      throw new IllegalArgumentException(handler + " has no event handler");
    }
    Map<String, Boolean> known = new ConcurrentHashMap<>();
    ClassLoader loader = handler.getClassLoader();
    return type ->
        known.computeIfAbsent(
            type,
            name -> {
              try {
                Class<?> payload = Class.forName(name, false, loader);
                return taken.stream().anyMatch(parameter -> parameter.isAssignableFrom(payload));
              } catch (ClassNotFoundException | LinkageError e) {
                return true;
              }
            });
  }

  /**
   * The page Axon's engine reads after {@code lastToken}, each event with the token Axon gives it,
   * less the events the follower does not handle: only the page's last is kept, whatever it is, so
   * that a reader moves on over the page (an empty page is the end of the store for it).
   */
  @Override
  protected List<? extends TrackedEventData<?>> fetchTrackedEvents(
      TrackingToken lastToken, int batchSize) {
    List<? extends TrackedEventData<?>> page = super.fetchTrackedEvents(lastToken, batchSize);
    List<TrackedEventData<?>> kept = new ArrayList<>();
    for (int i = 0; i < page.size(); i++) {
      TrackedEventData<?> event = page.get(i);
      if (i == page.size() - 1 || handled.test(event.getPayload().getType().getName())) {
        kept.add(event);
      }
    }
    return kept;
  }

  /** The rows Axon's engine reads for a page after {@code previous}, as it reads them. */
  @Override
  protected List<Object[]> fetchEvents(GapAwareTrackingToken previous) {
    return entityManager().unwrap(Session.class).doReturningWork(c -> fetch(c, previous));
  }

  private List<Object[]> fetch(Connection connection, GapAwareTrackingToken previous)
      throws SQLException {
    List<Long> gaps = previous == null ? List.of() : new ArrayList<>(previous.getGaps());
    StringBuilder sql = new StringBuilder(COLUMNS).append("global_index > ?");
    if (!gaps.isEmpty()) {
      sql.append(" or global_index in (?").append(",?".repeat(gaps.size() - 1)).append(')');
    }
    sql.append(" order by global_index limit ?");
    List<Object[]> rows = new ArrayList<>();
    Map<Long, Object[]> toRead = new HashMap<>();
    try (PreparedStatement statement = connection.prepareStatement(sql.toString())) {
      int parameter = 1;
      statement.setLong(parameter++, previous == null ? -1L : previous.getIndex());
      for (long gap : gaps) {
        statement.setLong(parameter++, gap);
      }
      statement.setInt(parameter, batchSize());
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          Object[] row = {
            result.getLong(1),
            result.getString(2),
            result.getString(3),
            result.getLong(4),
            result.getString(5),
            result.getString(6),
            result.getString(7),
            result.getString(8),
            NOT_READ,
            result.getBytes(9)
          };
          rows.add(row);
          if (handled.test((String) row[6])) {
            toRead.put((Long) row[0], row);
          }
        }
      }
    }
    if (!toRead.isEmpty()) {
      readPayloads(connection, toRead);
    }
    return rows;
  }

  private static void readPayloads(Connection connection, Map<Long, Object[]> rows)
      throws SQLException {
    String sql =
        "select global_index, payload from domain_event_entry where global_index in (?"
            + ",?".repeat(rows.size() - 1)
            + ")";
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int parameter = 1;
      for (long index : rows.keySet()) {
        statement.setLong(parameter++, index);
      }
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          rows.get(result.getLong(1))[8] = result.getBytes(2);
        }
      }
    }
  }
}
