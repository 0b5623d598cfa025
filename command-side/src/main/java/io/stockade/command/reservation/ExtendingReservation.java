package io.stockade.command.reservation;

import io.stockade.api.reservation.ExtendReservationCommand;
import io.stockade.command.RacedAppends;
import io.stockade.command.admission.AdmissionGate;
import io.stockade.command.admission.AdmissionGate.Transition;
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
 * scheduled deadline) has no row: it gets one now, after the event is stored.
 */
@Component
class ExtendingReservation {

  private static final Logger log = LoggerFactory.getLogger(ExtendingReservation.class);

  private final CommandGateway commands;
  private final AdmissionGate gate;
  private final JdbcTemplate jdbc;
  private final Clock clock;

  ExtendingReservation(
      CommandGateway commands, AdmissionGate gate, JdbcTemplate jdbc, Clock clock) {
    this.commands = commands;
    this.gate = gate;
    this.jdbc = jdbc;
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
    Extension extension =
        RacedAppends.retried(
            () -> commands.sendAndWait(new ExtendReservationCommand(reservationId, asked, now)));
    if (extension.extended()) {
      jdbc.update(
          "insert ignore into reservation_expiry (reservation_id, due_at) values (?, ?)",
          reservationId,
          LocalDateTime.ofInstant(extension.expiresAt(), ZoneOffset.UTC));
    }
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
}
