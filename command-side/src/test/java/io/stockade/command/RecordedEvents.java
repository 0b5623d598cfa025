package io.stockade.command;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.sku.SkuEvent;
import io.stockade.localinfra.EmbeddedRedis;
import java.nio.file.Path;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;

/** What the command side's HTTP tests read from the event table, and their own Redis servers. */
public final class RecordedEvents {

  private RecordedEvents() {}

  /**
   * Events of the reservation or the SKU of this id (each in its own stream namespace), of the
   * given type (simple name of the payload), or of any when null.
   */
  public static int count(JdbcTemplate jdbc, String id, String type) {
    return jdbc.queryForObject(
        "select count(*) from domain_event_entry where aggregate_identifier in (?, ?)"
            + " and payload_type like ?",
        Integer.class,
        ReservationEvent.streamId(id),
        SkuEvent.streamId(id),
        type == null ? "%" : "%." + type);
  }

  /**
   * A Redis of a test class's own (one it may stop and start), stopped when the JVM ends; its
   * address registered as the application's Redis.
   */
  public static EmbeddedRedis ownRedis(String name) {
    EmbeddedRedis redis =
        EmbeddedRedis.start(
            Path.of(System.getProperty("java.io.tmpdir"), name + "-" + UUID.randomUUID()));
    Runtime.getRuntime().addShutdownHook(new Thread(redis::stop));
    return redis;
  }

  public static void useRedis(DynamicPropertyRegistry properties, EmbeddedRedis redis) {
    properties.add("spring.data.redis.host", () -> "127.0.0.1");
    properties.add("spring.data.redis.port", redis::port);
  }
}
