package io.stockade.command.reservation;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.axonframework.modelling.command.AggregateNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Releases unpaid reservations when their hold has passed, with reason EXPIRED, through the
 * aggregate: a reservation that ended before (confirmed, released, abandoned) is left as it is, and
 * one whose hold was extended past its row's due time has its row moved to the new end (the
 * aggregate, which holds the end as the record does, tells: no clock of an instance decides it).
 *
 * <p>The due times are rows of {@code reservation_expiry}, written with each reservation's event
 * (see {@link StoringReservations}), so they survive restarts and need nothing from Redis. Every
 * instance polls them; {@code FOR UPDATE SKIP LOCKED} gives each due row to one instance at a time,
 * which keeps it locked while it releases the reservation (in a transaction of its own) and deletes
 * it afterwards. A crash in between leaves the row: the next poll runs the expiry again, and the
 * aggregate, released already, changes nothing.
 */
@Component
@ConditionalOnProperty(
    name = "stockade.expiry.enabled",
    havingValue = "true",
    matchIfMissing = true)
class ExpiringReservations {

  private static final Logger log = LoggerFactory.getLogger(ExpiringReservations.class);

  /** Due rows one poll locks at a time; the poll goes on while it finds full batches. */
  static final int BATCH = 100;

  private final JdbcTemplate jdbc;
  private final EndingReservation ending;
  private final TransactionTemplate claim;
  private final TransactionTemplate release;

  ExpiringReservations(
      JdbcTemplate jdbc, EndingReservation ending, PlatformTransactionManager transactions) {
    this.jdbc = jdbc;
    this.ending = ending;
    this.claim = new TransactionTemplate(transactions);
    // The locks are held while the batch's reservations are released one by one.
    this.claim.setTimeout(60);
    this.release = new TransactionTemplate(transactions);
    this.release.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
  }

  @Scheduled(fixedDelayString = "${stockade.expiry.polling-interval:1s}")
  void expireDue() {
    try {
      Integer locked;
      do {
        locked = claim.execute(status -> expireBatch());
      } while (locked != null && locked == BATCH);
    } catch (RuntimeException e) {
      log.warn("Expiry poll stopped early; the next one goes on", e);
    }
  }

  /**
   * @return how many due rows it locked
   */
  private int expireBatch() {
    List<Due> due =
        jdbc.query(
            "select reservation_id, due_at from reservation_expiry where due_at <= utc_timestamp(6)"
                + " order by due_at limit ? for update skip locked",
            (row, index) ->
                new Due(
                    row.getString(1),
                    row.getObject(2, LocalDateTime.class).toInstant(ZoneOffset.UTC)),
            BATCH);
    List<Object[]> done = new ArrayList<>(due.size());
    List<Object[]> later = new ArrayList<>();
    for (Due row : due) {
      try {
        if (expire(row)) {
          done.add(new Object[] {row.reservationId()});
        }
      } catch (NotYetDueException extended) {
        // Not sooner than the next poll: an instance whose clock is behind never spins on it.
        later.add(
            new Object[] {
              LocalDateTime.ofInstant(extended.expiresAt(), ZoneOffset.UTC), row.reservationId()
            });
      }
    }
    if (!done.isEmpty()) {
      jdbc.batchUpdate("delete from reservation_expiry where reservation_id = ?", done);
    }
    if (!later.isEmpty()) {
      jdbc.batchUpdate(
          "update reservation_expiry set due_at = greatest(?, utc_timestamp(6) + interval 1 second)"
              + " where reservation_id = ?",
          later);
    }
    return due.size();
  }

  private record Due(String reservationId, Instant dueAt) {}

  /**
   * @return whether the reservation's expiry is settled (else its row stays for the next poll)
   * @throws NotYetDueException when its hold was extended: the row is to move to the new end
   */
  private boolean expire(Due row) {
    String reservationId = row.reservationId();
    try {
      release.executeWithoutResult(status -> ending.expire(reservationId, row.dueAt()));
      return true;
    } catch (NotYetDueException extended) {
      throw extended;
    } catch (ReservationNotActiveException ended) {
      return true; // Confirmed, or abandoned: nothing to release.
    } catch (AggregateNotFoundException unknown) {
      log.error("Reservation {} has an expiry but no stream; its expiry is dropped", reservationId);
      return true;
    } catch (RuntimeException e) {
      log.warn("Expiry of reservation {} failed; the next poll tries again", reservationId, e);
      return false;
    }
  }
}
