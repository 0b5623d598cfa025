package io.stockade.command.reservation;

import static org.axonframework.test.matchers.Matchers.andNoMore;
import static org.axonframework.test.matchers.Matchers.exactSequenceOf;
import static org.axonframework.test.matchers.Matchers.messageWithPayload;

import io.stockade.api.reservation.ConfirmReservationCommand;
import io.stockade.api.reservation.ReleaseReservationCommand;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.ReserveStockCommand;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.command.admission.AdmissionFence;
import io.stockade.command.admission.GateEpochChangedException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.hamcrest.CustomTypeSafeMatcher;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ReservationTest {

  private static final Instant RESERVED_AT = Instant.parse("2026-11-30T10:00:00Z");
  private static final Instant EXPIRES_AT = Instant.parse("2026-11-30T10:15:00Z");
  private static final List<ReservationLine> LINES =
      List.of(new ReservationLine("1001", 2), new ReservationLine("1002", 1));

  private AggregateTestFixture<Reservation> fixture;

  @BeforeEach
  void setUp() {
    fixture = new AggregateTestFixture<>(Reservation.class);
    // The gate is open in epoch 3.
    fixture.registerInjectableResource(
        (AdmissionFence)
            epoch -> {
              if (epoch != 3) {
                throw new GateEpochChangedException(epoch, 3, "OPEN");
              }
            });
  }

  private static final Instant LATER = Instant.parse("2026-11-30T10:05:00Z");
  private static final StockReserved RESERVED =
      new StockReserved("O-1", "u-42", LINES, RESERVED_AT, EXPIRES_AT, 17, 3);

  @Test
  void confirmsOnceWithWhatAnAuditorNeeds() {
    fixture
        .given(RESERVED)
        .when(new ConfirmReservationCommand("O-1", LATER))
        .expectEvents(new StockConfirmed("O-1", "u-42", LINES, LATER));
  }

  @Test
  void aRepeatedConfirmChangesNothing() {
    fixture
        .given(RESERVED, new StockConfirmed("O-1", "u-42", LINES, LATER))
        .when(new ConfirmReservationCommand("O-1", LATER.plusSeconds(1)))
        .expectSuccessfulHandlerExecution()
        .expectNoEvents();
  }

  @Test
  void releasesOnceWithItsReason() {
    fixture
        .given(RESERVED)
        .when(new ReleaseReservationCommand("O-1", "CANCELLED", LATER))
        .expectEvents(new StockReleased("O-1", "u-42", LINES, "CANCELLED", LATER));
  }

  @Test
  void aRepeatedReleaseChangesNothing() {
    fixture
        .given(RESERVED, new StockReleased("O-1", "u-42", LINES, "EXPIRED", LATER))
        .when(new ReleaseReservationCommand("O-1", "CANCELLED", LATER.plusSeconds(1)))
        .expectSuccessfulHandlerExecution()
        .expectNoEvents();
  }

  @Test
  void aConfirmedReservationCannotBeReleased() {
    fixture
        .given(RESERVED, new StockConfirmed("O-1", "u-42", LINES, LATER))
        .when(new ReleaseReservationCommand("O-1", "CANCELLED", LATER))
        .expectNoEvents()
        .expectException(ReservationNotActiveException.class)
        .expectExceptionMessage("Reservation O-1 is CONFIRMED");
  }

  @Test
  void aReleasedReservationCannotBeConfirmed() {
    fixture
        .given(RESERVED, new StockReleased("O-1", "u-42", LINES, "EXPIRED", LATER))
        .when(new ConfirmReservationCommand("O-1", LATER))
        .expectNoEvents()
        .expectException(ReservationNotActiveException.class)
        .expectExceptionMessage("Reservation O-1 is RELEASED");
  }

  @Test
  void reservingSchedulesItsExpiryAndAnUnpaidReservationExpires() {
    Instant expires = fixture.currentTime().plusSeconds(900);
    fixture
        .givenCommands(new ReserveStockCommand("O-1", "u-42", LINES, RESERVED_AT, expires, 17, 3))
        .whenTimeAdvancesTo(expires)
        .expectTriggeredDeadlinesWithName(Reservation.EXPIRY)
        .expectEventsMatching(
            exactSequenceOf(
                messageWithPayload(
                    new CustomTypeSafeMatcher<StockReleased>("an expiry of O-1 with its lines") {
                      @Override
                      protected boolean matchesSafely(StockReleased released) {
                        // releasedAt is when the deadline ran, read from the clock.
                        return released.reservationId().equals("O-1")
                            && released.userId().equals("u-42")
                            && released.lines().equals(LINES)
                            && released.reason().equals(StockReleased.EXPIRED)
                            && released.releasedAt() != null;
                      }
                    }),
                andNoMore()));
  }

  @Test
  void aReservationExpiresOnlyWhenItsHoldHasPassed() {
    Instant expires = fixture.currentTime().plusSeconds(900);
    fixture
        .givenCommands(new ReserveStockCommand("O-1", "u-42", LINES, RESERVED_AT, expires, 17, 3))
        .whenTimeElapses(Duration.ofSeconds(899))
        .expectNoEvents()
        .expectScheduledDeadlineWithName(expires, Reservation.EXPIRY);
  }

  @Test
  void aConfirmedReservationDoesNotExpire() {
    Instant expires = fixture.currentTime().plusSeconds(900);
    fixture
        .givenCommands(
            new ReserveStockCommand("O-1", "u-42", LINES, RESERVED_AT, expires, 17, 3),
            new ConfirmReservationCommand("O-1", LATER))
        .whenTimeAdvancesTo(expires)
        .expectTriggeredDeadlinesWithName(Reservation.EXPIRY)
        .expectNoEvents();
  }

  @Test
  void aReleasedReservationDoesNotExpireAgain() {
    Instant expires = fixture.currentTime().plusSeconds(900);
    fixture
        .givenCommands(
            new ReserveStockCommand("O-1", "u-42", LINES, RESERVED_AT, expires, 17, 3),
            new ReleaseReservationCommand("O-1", "CANCELLED", LATER))
        .whenTimeAdvancesTo(expires)
        .expectTriggeredDeadlinesWithName(Reservation.EXPIRY)
        .expectNoEvents();
  }

  @Test
  void recordsWhatTheGateAdmittedWithItsSequence() {
    fixture
        .givenNoPriorActivity()
        .when(new ReserveStockCommand("O-1", "u-42", LINES, RESERVED_AT, EXPIRES_AT, 17, 3))
        .expectSuccessfulHandlerExecution()
        .expectEvents(new StockReserved("O-1", "u-42", LINES, RESERVED_AT, EXPIRES_AT, 17, 3));
  }

  @Test
  void anAdmissionOfAGateSinceRebuiltIsNotRecorded() {
    fixture
        .givenNoPriorActivity()
        .when(new ReserveStockCommand("O-1", "u-42", LINES, RESERVED_AT, EXPIRES_AT, 17, 2))
        .expectException(GateEpochChangedException.class)
        .expectNoEvents();
  }
}
