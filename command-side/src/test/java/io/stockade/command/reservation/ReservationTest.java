package io.stockade.command.reservation;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.ReserveStockCommand;
import io.stockade.api.reservation.StockReserved;
import java.time.Instant;
import java.util.List;
import org.axonframework.test.aggregate.AggregateTestFixture;
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

  @Test
  void recordsWhatTheGateAdmittedWithItsSequence() {
    fixture
        .givenNoPriorActivity()
        .when(new ReserveStockCommand("O-1", "u-42", LINES, RESERVED_AT, EXPIRES_AT, 17))
        .expectSuccessfulHandlerExecution()
        .expectEvents(new StockReserved("O-1", "u-42", LINES, RESERVED_AT, EXPIRES_AT, 17));
  }
}
