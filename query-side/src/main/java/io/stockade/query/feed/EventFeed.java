package io.stockade.query.feed;

import io.stockade.api.draw.ReservationQueued;
import io.stockade.platform.eventstore.IsoInstants;
import io.stockade.platform.eventstore.SettledHorizon;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Every stored event after a position, oldest first, read from Axon's event table with plain JDBC
 * by primary key: events of every type, none decoded, so that the feed needs no list of types.
 *
 * <p>Never skips an event. A page ends before the first hole in the global indices that lies above
 * the {@link SettledHorizon}: a transaction may still commit an event there, below the events that
 * follow. Such a hole is reported to the horizon, which moves past it once no transaction can fill
 * it; until then the page holds what lies below the hole (possibly nothing).
 */
@Component
class EventFeed {

  /** The most events of a page. */
  static final int MOST = 1000;

  private static final String PAGE =
      "select global_index, type, aggregate_identifier, payload_type, time_stamp, payload,"
          + " event_identifier"
          + " from domain_event_entry where global_index > ? order by global_index limit ?";

  private final JdbcTemplate jdbc;
  private final SettledHorizon horizon;

  EventFeed(JdbcTemplate jdbc, SettledHorizon horizon) {
    this.jdbc = jdbc;
    this.horizon = horizon;
  }

  /** At most {@code limit} events after {@code after}; {@code next} where the page ends. */
  FeedPage read(long after, int limit) {
    if (limit < 1 || limit > MOST) {
      throw new IllegalArgumentException("limit " + limit + " outside 1.." + MOST);
    }
    // Read before the rows: a horizon that moves after them may pass a hole that an event filled
    // after they were read.
    long settled = horizon.settled();
    List<FeedEvent> events = new ArrayList<>(Math.min(limit, 100));
    long[] last = {after};
    boolean[] stopped = {false};
    jdbc.query(
        PAGE,
        rs -> {
          if (stopped[0]) {
            return;
          }
          long position = rs.getLong(1);
          if (position > last[0] + 1 && position - 1 > settled) {
            // A hole from last + 1 to position - 1, not all of it known to stay empty.
            stopped[0] = true;
            horizon.demand(position - 1);
            return;
          }
          events.add(event(position, rs));
          last[0] = position;
        },
        after,
        limit);
    return new FeedPage(events, last[0]);
  }

  /** The highest position in the event store, 0 when it is empty. */
  long head() {
    Long head = jdbc.queryForObject("select max(global_index) from domain_event_entry", Long.class);
    return head == null ? 0 : head;
  }

  private static FeedEvent event(long position, ResultSet rs) throws SQLException {
    String aggregateType = rs.getString(2);
    return new FeedEvent(
        position,
        simpleName(rs.getString(4)),
        aggregateType,
        aggregateId(rs.getString(3), aggregateType),
        IsoInstants.parse(rs.getString(5)),
        new String(rs.getBytes(6), StandardCharsets.UTF_8),
        rs.getString(7));
  }

  /** {@code StockReserved} for {@code io.stockade.api.reservation.StockReserved}. */
  static String simpleName(String className) {
    int dot = Math.max(className.lastIndexOf('.'), className.lastIndexOf('$'));
    return className.substring(dot + 1);
  }

  /**
   * The aggregate's own id: each aggregate type's streams have their own namespace in the event
   * store, {@code <type in lower case>:<id>} ({@code reservation:O-1}, {@code sku:1001}). An
   * identifier outside its type's namespace is handed on as stored. A queued reservation's stream
   * is the one exception to the rule of names: {@code queued:<reservation id>}, of type {@code
   * QueuedReservation}.
   */
  static String aggregateId(String identifier, String aggregateType) {
    if (aggregateType == null) {
      return identifier;
    }
    String namespace =
        ReservationQueued.AGGREGATE_TYPE.equals(aggregateType)
            ? ReservationQueued.STREAM_PREFIX
            : aggregateType.toLowerCase(Locale.ROOT) + ":";
    return identifier.startsWith(namespace) ? identifier.substring(namespace.length()) : identifier;
  }
}
