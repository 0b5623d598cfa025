package io.stockade.query.reservation;

import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoMoreInteractions;

import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The reservation projection alone: which row change each event asks for, with which sequence
 * number, the table replaced by a mock (its SQL is covered by {@code
 * ReservationProjectionIntegrationTest}).
 */
class ReservationProjectionTest {

  private static final Instant AT = Instant.parse("2026-11-30T10:00:00Z");
  private static final Instant STORED = AT.plusMillis(5);
  private static final List<ReservationLine> LINES = List.of(new ReservationLine("a", 2));

  private final ReservationRows rows = mock(ReservationRows.class);
  private final ReservationProjection projection =
      new ReservationProjection(rows, mock(ReservationViews.class));

  @Test
  void aReservationCreatesAReservedRowThatExpires() {
    projection.on(new StockReserved("O-1", "u-1", LINES, AT, AT.plusSeconds(900), 4, 1), 0, STORED);

    verify(rows)
        .create(
            "O-1",
            "u-1",
            ReservationRow.Status.RESERVED,
            LINES,
            AT,
            AT.plusSeconds(900),
            null,
            null,
            0,
            STORED);
    verifyNoMoreInteractions(rows);
  }

  @Test
  void anAbandonedAdmissionCreatesAReleasedRowWithItsReason() {
    projection.on(new ReservationAbandoned("O-2", "u-1", LINES, 4, AT), 0, STORED);

    verify(rows)
        .create(
            "O-2",
            "u-1",
            ReservationRow.Status.ABANDONED,
            LINES,
            AT,
            null,
            AT,
            ReservationAbandoned.REASON,
            0,
            STORED);
    verifyNoMoreInteractions(rows);
  }

  @Test
  void anExtensionMovesTheEndOfTheHoldAtItsSequence() {
    projection.on(
        new ReservationExtended("O-1", "u-1", AT.plusSeconds(1800), AT.plusSeconds(60)), 1, STORED);

    verify(rows).extend("O-1", AT.plusSeconds(1800), 1, STORED);
    verifyNoMoreInteractions(rows);
  }

  @Test
  void aConfirmationConfirmsTheUnitsItSoldAtItsSequence() {
    List<ReservationLine> sold = List.of(new ReservationLine("a", 1));
    projection.on(new StockConfirmed("O-1", "u-1", sold, AT), 1, STORED);

    verify(rows).confirm("O-1", AT, sold, 1, STORED);
    verifyNoMoreInteractions(rows);
  }

  @Test
  void aReleaseReleasesWithItsReasonAtItsSequence() {
    projection.on(new StockReleased("O-1", "u-1", LINES, "EXPIRED", AT), 1, STORED);

    verify(rows).release("O-1", AT, "EXPIRED", 1, STORED);
    verifyNoMoreInteractions(rows);
  }

  @Test
  void aResetEmptiesTheTable() {
    projection.reset();

    verify(rows).deleteAll();
  }
}
