package io.stockade.query.replay;

import java.util.List;
import java.util.Map;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

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
}
