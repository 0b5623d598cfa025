package io.stockade.query.reservation;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Reservations as the read model holds them: the gauge {@code stockade.reservations} by {@code
 * status} (RESERVED, CONFIRMED, RELEASED, ABANDONED, and QUEUED and REFUSED for a pre-queue's) and
 * the counter {@code stockade.reservations.expired} (released by their deadline). A reservation
 * confirmed in part is CONFIRMED: the units it gave back (reason NOT_CONFIRMED) are no release of
 * it, and are counted nowhere here. Counted from the read model every {@code
 * stockade.metrics.refresh-interval}, so every instance reports the same numbers, whichever events
 * it processed; the count reads the whole table, once per interval, whatever the scrapes.
 */
@Component
class ReservationMetrics {

  private static final Logger log = LoggerFactory.getLogger(ReservationMetrics.class);

  static final List<String> STATUSES =
      List.of("RESERVED", "CONFIRMED", "RELEASED", "ABANDONED", "QUEUED", "REFUSED");

  private final JdbcTemplate jdbc;
  private final Map<String, AtomicLong> byStatus = new ConcurrentHashMap<>();
  private final AtomicLong expired = new AtomicLong();

  ReservationMetrics(JdbcTemplate jdbc, MeterRegistry meters) {
    this.jdbc = jdbc;
    for (String status : STATUSES) {
      AtomicLong count = byStatus.computeIfAbsent(status, s -> new AtomicLong());
      Gauge.builder("stockade.reservations", count, AtomicLong::get)
          .description("Reservations in the read model by status")
          .tag("status", status)
          .register(meters);
    }
    FunctionCounter.builder("stockade.reservations.expired", expired, AtomicLong::get)
        .description("Reservations released by their deadline, as the read model holds them")
        .register(meters);
  }

  @Scheduled(
      initialDelayString = "0s",
      fixedDelayString = "${stockade.metrics.refresh-interval:15s}")
  void refresh() {
    try {
      count();
    } catch (DataAccessException e) {
      log.warn("Reservation metrics not refreshed: {}", e.getMessage());
    }
  }

  private void count() {
    Map<String, Long> counts = new ConcurrentHashMap<>();
    long[] expiredNow = {0};
    jdbc.query(
        "select status, release_reason = 'EXPIRED' as expired, count(*) from reservation_view"
            + " group by status, release_reason = 'EXPIRED'",
        rs -> {
          long count = rs.getLong(3);
          counts.merge(rs.getString(1), count, Long::sum);
          if (rs.getBoolean(2)) {
            expiredNow[0] += count;
          }
        });
    byStatus.forEach((status, value) -> value.set(counts.getOrDefault(status, 0L)));
    expired.set(expiredNow[0]);
  }
}
