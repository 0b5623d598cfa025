package io.stockade.command.reservation;

import static org.axonframework.test.matchers.Matchers.andNoMore;
import static org.axonframework.test.matchers.Matchers.exactSequenceOf;
import static org.axonframework.test.matchers.Matchers.messageWithPayload;

import io.stockade.api.reservation.ConfirmReservationCommand;
import io.stockade.api.reservation.ExpireReservationCommand;
import io.stockade.api.reservation.ExtendReservationCommand;
import io.stockade.api.reservation.ReleaseReservationCommand;
import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.command.admission.AdmissionId;
import java.lang.reflect.Field;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.axonframework.modelling.command.AggregateScopeDescriptor;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.axonframework.test.deadline.StubDeadlineManager;
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
  }

  /**
   * The expiry deadline as a version before {@code reservation_expiry} scheduled it when it stored
   * the reservation: such deadlines still fire after an upgrade. Nothing schedules one now, so it
   * is put into the fixture's deadline manager as that version's handler did.
   */
  private void scheduledByAnEarlierVersion(Instant at) throws ReflectiveOperationException {
    Field deadlines = AggregateTestFixture.class.getDeclaredField("deadlineManager");
    deadlines.setAccessible(true);
    ((StubDeadlineManager) deadlines.get(fixture))
        .schedule(
            at,
            Reservation.EXPIRY,
            null,
            new AggregateScopeDescriptor("Reservation", ReservationEvent.streamId("O-1")));
  }

  private static StockReserved reservedUntil(Instant expires) {
    return new StockReserved("O-1", "u-42", LINES, RESERVED_AT, expires, 17, 3);
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
  void anUnpaidReservationExpiresByADeadlineOfAnEarlierVersion() throws Exception {
    Instant expires = fixture.currentTime().plusSeconds(900);
    var given = fixture.given(reservedUntil(expires));
    scheduledByAnEarlierVersion(expires);
    given
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
  void aReservationExpiresOnlyWhenItsHoldHasPassed() throws Exception {
    Instant expires = fixture.currentTime().plusSeconds(900);
    var given = fixture.given(reservedUntil(expires));
    scheduledByAnEarlierVersion(expires);
    given
        .whenTimeElapses(Duration.ofSeconds(899))
        .expectNoEvents()
        .expectScheduledDeadlineWithName(expires, Reservation.EXPIRY);
  }

  @Test
  void aConfirmedReservationDoesNotExpire() throws Exception {
    Instant expires = fixture.currentTime().plusSeconds(900);
    var given =
        fixture
            .given(reservedUntil(expires))
            .andGivenCommands(new ConfirmReservationCommand("O-1", LATER));
    scheduledByAnEarlierVersion(expires);
    given
        .whenTimeAdvancesTo(expires)
        .expectTriggeredDeadlinesWithName(Reservation.EXPIRY)
        .expectNoEvents();
  }

  @Test
  void aReleasedReservationDoesNotExpireAgain() throws Exception {
    Instant expires = fixture.currentTime().plusSeconds(900);
    var given =
        fixture
            .given(reservedUntil(expires))
            .andGivenCommands(new ReleaseReservationCommand("O-1", "CANCELLED", LATER));
    scheduledByAnEarlierVersion(expires);
    given
        .whenTimeAdvancesTo(expires)
        .expectTriggeredDeadlinesWithName(Reservation.EXPIRY)
        .expectNoEvents();
  }

  private static final List<ReservationLine> ONE_OF_1001 = List.of(new ReservationLine("1001", 1));
  private static final List<ReservationLine> LEFT =
      List.of(new ReservationLine("1001", 1), new ReservationLine("1002", 1));

  /** The two events of a partial confirmation of one unit of 1001. */
  private static final StockConfirmed PARTLY_CONFIRMED =
      new StockConfirmed("O-1", "u-42", ONE_OF_1001, LATER);

  private static final StockReleased PARTLY_RELEASED =
      new StockReleased("O-1", "u-42", LEFT, StockReleased.NOT_CONFIRMED, LATER);

  @Test
  void aPartialConfirmationSellsWhatItNamesAndReleasesTheRestInTheSameStep() {
    fixture
        .given(RESERVED)
        .when(new ConfirmReservationCommand("O-1", ONE_OF_1001, LATER))
        .expectEvents(
            new StockConfirmed("O-1", "u-42", ONE_OF_1001, LATER),
            new StockReleased("O-1", "u-42", LEFT, StockReleased.NOT_CONFIRMED, LATER))
        .expectResultMessagePayload(new GateHold(new AdmissionId(17, 3), LINES, ONE_OF_1001));
  }

  @Test
  void confirmationLinesOfOneSkuAreMergedAndEveryUnitNamedIsAWholeConfirmation() {
    fixture
        .given(RESERVED)
        .when(
            new ConfirmReservationCommand(
                "O-1",
                List.of(
                    new ReservationLine("1002", 1),
                    new ReservationLine("1001", 1),
                    new ReservationLine("1001", 1)),
                LATER))
        .expectEvents(new StockConfirmed("O-1", "u-42", LINES, LATER));
  }

  @Test
  void aPartialConfirmationRepeatedWithTheSameLinesOrNoneChangesNothing() {
    fixture
        .given(RESERVED, PARTLY_CONFIRMED, PARTLY_RELEASED)
        .when(new ConfirmReservationCommand("O-1", ONE_OF_1001, LATER.plusSeconds(1)))
        .expectNoEvents()
        .expectResultMessagePayload(new GateHold(new AdmissionId(17, 3), LINES, ONE_OF_1001));
    fixture
        .given(RESERVED, PARTLY_CONFIRMED, PARTLY_RELEASED)
        .when(new ConfirmReservationCommand("O-1", LATER.plusSeconds(1)))
        .expectNoEvents()
        .expectSuccessfulHandlerExecution();
  }

  @Test
  void aConfirmationWithOtherLinesThanTheOneRecordedIsRefused() {
    fixture
        .given(RESERVED, new StockConfirmed("O-1", "u-42", LINES, LATER))
        .when(new ConfirmReservationCommand("O-1", ONE_OF_1001, LATER))
        .expectNoEvents()
        .expectException(ReservationNotActiveException.class)
        .expectExceptionMessage("Reservation O-1 is CONFIRMED");
  }

  @Test
  void aPartiallyConfirmedReservationCannotBeReleasedOrExtended() {
    fixture
        .given(RESERVED, PARTLY_CONFIRMED, PARTLY_RELEASED)
        .when(new ReleaseReservationCommand("O-1", "CANCELLED", LATER))
        .expectNoEvents()
        .expectExceptionMessage("Reservation O-1 is CONFIRMED");
  }

  @Test
  void aConfirmationNamingASkuNotReservedOrMoreUnitsThanReservedChangesNothing() {
    fixture
        .given(RESERVED)
        .when(
            new ConfirmReservationCommand(
                "O-1",
                List.of(new ReservationLine("1001", 3), new ReservationLine("9999", 1)),
                LATER))
        .expectNoEvents()
        .expectException(InvalidConfirmationException.class)
        .expectException(
            new CustomTypeSafeMatcher<InvalidConfirmationException>("both wrong lines") {
              @Override
              protected boolean matchesSafely(InvalidConfirmationException e) {
                return e.wrong().stream()
                    .map(InvalidConfirmationException.WrongLine::field)
                    .toList()
                    .equals(List.of("lines[0].quantity", "lines[1].skuId"));
              }
            });
  }

  @Test
  void anExtensionMovesTheHoldsEndLaterOnly() {
    Instant later = EXPIRES_AT.plusSeconds(600);
    fixture
        .given(RESERVED)
        .when(new ExtendReservationCommand("O-1", later, LATER))
        .expectEvents(new ReservationExtended("O-1", "u-42", later, LATER))
        .expectResultMessagePayload(
            new Extension(new GateHold(new AdmissionId(17, 3), LINES, null), later, true));
    fixture
        .given(RESERVED, new ReservationExtended("O-1", "u-42", later, LATER))
        .when(new ExtendReservationCommand("O-1", EXPIRES_AT.plusSeconds(60), LATER))
        .expectNoEvents()
        .expectResultMessagePayload(
            new Extension(new GateHold(new AdmissionId(17, 3), LINES, null), later, false));
  }

  @Test
  void anEndedReservationOrOneWhoseHoldHasPassedCannotBeExtended() {
    fixture
        .given(RESERVED, new StockConfirmed("O-1", "u-42", LINES, LATER))
        .when(new ExtendReservationCommand("O-1", EXPIRES_AT.plusSeconds(600), LATER))
        .expectNoEvents()
        .expectExceptionMessage("Reservation O-1 is CONFIRMED");
    fixture
        .given(RESERVED)
        .when(
            new ExtendReservationCommand(
                "O-1", EXPIRES_AT.plusSeconds(600), EXPIRES_AT.plusSeconds(1)))
        .expectNoEvents()
        .expectExceptionMessage("Reservation O-1 is EXPIRED");
  }

  @Test
  void anExpiryOfAHoldExtendedSinceIsNotDueAndOneAtTheNewEndExpires() {
    Instant later = EXPIRES_AT.plusSeconds(600);
    fixture
        .given(RESERVED, new ReservationExtended("O-1", "u-42", later, LATER))
        .when(new ExpireReservationCommand("O-1", EXPIRES_AT, EXPIRES_AT))
        .expectNoEvents()
        .expectException(NotYetDueException.class);
    fixture
        .given(RESERVED, new ReservationExtended("O-1", "u-42", later, LATER))
        .when(new ExpireReservationCommand("O-1", later, later))
        .expectEvents(new StockReleased("O-1", "u-42", LINES, StockReleased.EXPIRED, later));
  }

  @Test
  void aScheduledExpiryOfAnExtendedHoldDoesNothing() throws Exception {
    Instant expires = fixture.currentTime().plusSeconds(900);
    var given =
        fixture
            .given(reservedUntil(expires))
            .andGivenCommands(new ExtendReservationCommand("O-1", expires.plusSeconds(600), LATER));
    scheduledByAnEarlierVersion(expires);
    given
        .whenTimeAdvancesTo(expires)
        .expectTriggeredDeadlinesWithName(Reservation.EXPIRY)
        .expectNoEvents();
  }
}
