package io.stockade.query.replay;

import java.util.List;
import java.util.Map;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/** The read models as the replay tests with instances of their own compare them. */
final class ReadModelRows {

  private ReadModelRows() {}

  /** Every segment of every projection of {@code instance} has reached the event store's head. */
  static boolean caughtUp(ConfigurableApplicationContext instance) {
    long head =
        instance
            .getBean(JdbcTemplate.class)
            .queryForObject(
                "select coalesce(max(global_index), 0) from domain_event_entry", Long.class);
    return instance
            .getBean(TokenEntries.class)
            .lowestPosition(instance.getBean(ProjectionProcessors.class).names())
            .orElse(-1)
        >= head;
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
