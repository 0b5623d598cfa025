package io.stockade.query.reconciliation;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockReserved;
import io.stockade.query.Events;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What the reconciliation tests write: events appended to the event store (as the command side
 * appends them) and the gate's keys in the shared Redis, as the command side's scripts leave them.
 * Only keys of this run's SKUs and reservations are written, and {@link #clean()} deletes them.
 */
final class GateFixture {

  private final EventStore eventStore;
  private final TransactionTemplate transaction;
  private final StringRedisTemplate redis;
  private final List<String> written = new ArrayList<>();
  private final List<String> pending = new ArrayList<>();

  GateFixture(EventStore eventStore, TransactionTemplate transaction, StringRedisTemplate redis) {
    this.eventStore = eventStore;
    this.transaction = transaction;
    this.redis = redis;
  }

  static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  void append(String aggregateId, long sequence, Object payload) {
    Events.append(eventStore, transaction, aggregateId, sequence, payload);
  }

  StockReserved reserved(String reservationId, String skuId, int quantity) {
    Instant now = Instant.now();
    return new StockReserved(
        reservationId,
        "u-1",
        List.of(new ReservationLine(skuId, quantity)),
        now,
        now.plusSeconds(900),
        1,
        1);
  }

  /** The SKU's counters hash, {@code stockade:sku:{skuId}}. */
  void counters(String skuId, long available, long reserved, long sold) {
    String key = "stockade:sku:{" + skuId + "}";
    written.add(key);
    redis
        .opsForHash()
        .putAll(
            key,
            Map.of(
                "available", Long.toString(available),
                "reserved", Long.toString(reserved),
                "sold", Long.toString(sold),
                "limit", "-1"));
  }

  void increment(String skuId, String field, long by) {
    redis.opsForHash().increment("stockade:sku:{" + skuId + "}", field, by);
  }

  /** A reservation's intent record, {@code stockade:reservation:{reservationId}}. */
  void intent(String reservationId, String state, String skuId, int quantity) {
    String key = intentKey(reservationId);
    written.add(key);
    redis
        .opsForHash()
        .putAll(
            key,
            Map.of(
                "state",
                state,
                "user",
                "u-1",
                "lines",
                skuId + " " + quantity,
                "sequence",
                "1",
                "admittedAt",
                Long.toString(System.currentTimeMillis())));
  }

  /** What an admission does: the units taken, the intent recorded and listed as pending. */
  void admit(String reservationId, String skuId, int quantity) {
    intent(reservationId, "RESERVED", skuId, quantity);
    redis
        .opsForZSet()
        .add("stockade:gate:pending", intentKey(reservationId), System.currentTimeMillis());
    pending.add(intentKey(reservationId));
    increment(skuId, "available", -quantity);
    increment(skuId, "reserved", quantity);
  }

  /** What the command side does once the admission's event is stored. */
  void recorded(String reservationId) {
    redis.opsForZSet().remove("stockade:gate:pending", intentKey(reservationId));
  }

  void clean() {
    if (!pending.isEmpty()) {
      redis.opsForZSet().remove("stockade:gate:pending", pending.toArray());
    }
    if (!written.isEmpty()) {
      redis.delete(written);
    }
  }

  private static String intentKey(String reservationId) {
    return "stockade:reservation:{" + reservationId + "}";
  }
}
