package io.stockade.command.reservation;

import io.stockade.api.reservation.ExtendReservationCommand;
import io.stockade.command.RacedAppends;
import io.stockade.command.admission.ReservationTransitions;
import io.stockade.command.admission.ReservationTransitions.Transition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Extends a reservation's hold: the event first ({@code ReservationExtended}, which the aggregate
 * decides on, so that an extension racing a confirmation, a release or the expiry ends one way
 * only), then the gate's copy of the hold's end (what it answers a retry), which the {@link
 * GateFollower} also brings up to the record.
 *
 * <p>The expiry follows without a write here: the reservation's row in {@code reservation_expiry}
 * keeps its due time, and when it comes the aggregate answers that the hold now ends later, so the
 * row moves there ({@link ExpiringReservations}). Moving the row in the extension's transaction
 * would wait on the lock of an expiry poll that is releasing the same reservation, while that poll
 * waits on this aggregate. Only a reservation stored before expiry rows existed (expired by a
 * scheduled deadline, which leaves an extended hold to the row) has no row: it gets one in the
 * transaction that stores the event, so that the extension and the expiry that follows it are
 * recorded together or not at all. Whether the row exists is read without a lock, so an extension
 * of a reservation that has one never waits on the poll.
 */
@Component
class ExtendingReservation {

  private static final Logger log = LoggerFactory.getLogger(ExtendingReservation.class);

  private final CommandGateway commands;
  private final ReservationTransitions gate;
  private final JdbcTemplate jdbc;
  private final TransactionTemplate transaction;
  private final Clock clock;

  ExtendingReservation(
      CommandGateway commands,
      ReservationTransitions gate,
      JdbcTemplate jdbc,
      PlatformTransactionManager transactions,
      Clock clock) {
    this.commands = commands;
    this.gate = gate;
    this.jdbc = jdbc;
    // The command's unit of work joins it: the event and the row commit together.
    this.transaction = new TransactionTemplate(transactions);
    this.clock = clock;
  }

  /**
   * @return the end of the hold now
   * @throws ReservationNotActiveException when it ended, or its hold has passed
   * @throws org.axonframework.modelling.command.AggregateNotFoundException when it is unknown
   */
  Instant extend(String reservationId, Duration hold) {
    Instant now = clock.instant();
    // Milliseconds, as the gate keeps its times and as the expiry row compares them.
    Instant asked = now.plus(hold).truncatedTo(ChronoUnit.MILLIS);
    // Each try in a transaction of its own: a lost race rolls its transaction back.
    Extension extension =
        RacedAppends.retried(
            () -> transaction.execute(status -> recorded(reservationId, asked, now)));
    Transition outcome =
        gate.extend(
            reservationId,
            extension.hold().admission(),
            extension.hold().lines(),
            extension.expiresAt());
    if (outcome != Transition.DONE && outcome != Transition.ALREADY_DONE) {
      log.info("Gate did not follow the extension of {} yet ({})", reservationId, outcome);
    }
    return extension.expiresAt();
  }

  /**
   * The extension's event, and the expiry row of a reservation that has none, in one transaction.
   */
  private Extension recorded(String reservationId, Instant asked, Instant now) {
    Extension extension =
        commands.sendAndWait(new ExtendReservationCommand(reservationId, asked, now));
    if (extension.extended() && !hasExpiryRow(reservationId)) {
      jdbc.update(
          "insert ignore into reservation_expiry (reservation_id, due_at) values (?, ?)",
          reservationId,
          LocalDateTime.ofInstant(extension.expiresAt(), ZoneOffset.UTC));
    }
    return extension;
  }

  private boolean hasExpiryRow(String reservationId) {
    return Boolean.TRUE.equals(
        jdbc.queryForObject(
            "select exists (select 1 from reservation_expiry where reservation_id = ?)",
            Boolean.class,
            reservationId));
  }
}
