package io.stockade.query.replay;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.query.Events;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/** The read models as the replay tests with instances of their own compare them. */
final class ReadModelRows {

  private ReadModelRows() {}

  /**
   * Every segment of every projection of {@code instance}, as the shared token store holds them,
   * has reached the event store's head.
   */
  static boolean caughtUp(ConfigurableApplicationContext instance) {
    JdbcTemplate jdbc = instance.getBean(JdbcTemplate.class);
    Serializer serializer = instance.getBean(Serializer.class);
    long head =
        jdbc.queryForObject(
            "select coalesce(max(global_index), 0) from domain_event_entry", Long.class);
    for (String processor : instance.getBean(ProjectionProcessors.class).names()) {
      List<Long> positions =
          jdbc.query(
              "select token, token_type from token_entry where processor_name = ?",
              (rs, rowNum) -> position(serializer, rs.getBytes(1), rs.getString(2)),
              processor);
      if (positions.isEmpty() || positions.stream().anyMatch(position -> position < head)) {
        return false;
      }
    }
    return true;
  }

  private static long position(Serializer serializer, byte[] token, String type) {
    if (token == null) {
      return 0;
    }
    TrackingToken tracking =
        serializer.deserialize(new SimpleSerializedObject<>(token, byte[].class, type, null));
    return tracking == null ? 0 : tracking.position().orElse(0);
  }

  /** The rows of one SKU, and of the reservations whose ids begin with {@code reservations}. */
  static Map<String, List<Map<String, Object>>> snapshot(
      ConfigurableApplicationContext instance, String sku, String reservations) {
    JdbcTemplate jdbc = instance.getBean(JdbcTemplate.class);
    return Map.of(
        "stock_level",
        jdbc.queryForList("select * from stock_level where sku_id = ?", sku),
        "stock_ledger",
        jdbc.queryForList("select * from stock_ledger where sku_id = ? order by event_id", sku),
        "reservation_view",
        jdbc.queryForList(
            "select * from reservation_view where reservation_id like ? order by reservation_id",
            reservations + "%"));
  }

  /**
   * A SKU, and twelve reservations of it ({@code prefix} and a number), some confirmed and some
   * released; the last one's id.
   */
  static String workload(
      ConfigurableApplicationContext instance, String prefix, String sku, Integer perUserLimit) {
    EventStore eventStore = instance.getBean(EventStore.class);
    TransactionTemplate transaction = instance.getBean(TransactionTemplate.class);
    Instant t0 = Instant.now().minusSeconds(600);
    Events.append(eventStore, transaction, sku, 0, new SkuRegistered(sku, 100, perUserLimit), t0);
    String id = null;
    for (int r = 0; r < 12; r++) {
      id = prefix + r;
      Instant at = t0.plusSeconds(r + 1);
      List<ReservationLine> lines = List.of(new ReservationLine(sku, 1 + r % 3));
      Events.append(
          eventStore,
          transaction,
          id,
          0,
          new StockReserved(id, "u-" + r, lines, at, at.plusSeconds(900), r, 1),
          at);
      if (r % 3 == 0) {
        Events.append(
            eventStore, transaction, id, 1, new StockConfirmed(id, "u-" + r, lines, at), at);
      } else if (r % 3 == 1) {
        Events.append(
            eventStore,
            transaction,
            id,
            1,
            new StockReleased(id, "u-" + r, lines, "CANCELLED", at),
            at);
      }
    }
    return id;
  }
}
