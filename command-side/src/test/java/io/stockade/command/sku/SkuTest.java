package io.stockade.command.sku;

import io.stockade.api.sku.RegisterSkuCommand;
import io.stockade.api.sku.ReplenishStockCommand;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.SkuState;
import io.stockade.api.sku.StockReplenished;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.hamcrest.CustomTypeSafeMatcher;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SkuTest {

  private AggregateTestFixture<Sku> fixture;

  @BeforeEach
  void setUp() {
    fixture = new AggregateTestFixture<>(Sku.class);
  }

  @Test
  void registersANewSkuWithItsWholeStockAvailable() {
    fixture
        .givenNoPriorActivity()
        .when(new RegisterSkuCommand("1001", 500, 2))
        .expectSuccessfulHandlerExecution()
        .expectEvents(new SkuRegistered("1001", 500, 2))
        .expectResultMessagePayload(new SkuState("1001", 500, 2, 500, true));
  }

  @Test
  void registersWithoutPerUserLimit() {
    fixture
        .givenNoPriorActivity()
        .when(new RegisterSkuCommand("1001", 10, null))
        .expectEvents(new SkuRegistered("1001", 10, null));
  }

  @Test
  void identicalRepeatChangesNothing() {
    fixture
        .given(new SkuRegistered("1001", 500, 2))
        .when(new RegisterSkuCommand("1001", 500, 2))
        .expectNoEvents()
        .expectResultMessagePayload(new SkuState("1001", 500, 2, 500, false));
  }

  @Test
  void refusesToRegisterAgainWithOtherValues() {
    fixture
        .given(new SkuRegistered("1001", 500, 2))
        .when(new RegisterSkuCommand("1001", 400, 2))
        .expectNoEvents()
        .expectException(SkuAlreadyRegisteredException.class)
        .expectExceptionMessage("SKU 1001 is already registered with other values");
  }

  @Test
  void replenishesOncePerReplenishmentId() {
    fixture
        .given(new SkuRegistered("1001", 500, 2))
        .when(new ReplenishStockCommand("1001", "R-7", 100))
        .expectEvents(new StockReplenished("1001", "R-7", 100))
        .expectResultMessagePayload(new SkuState("1001", 500, 2, 600, true));
  }

  @Test
  void aRepeatedReplenishmentChangesNothing() {
    fixture
        .given(new SkuRegistered("1001", 500, 2), new StockReplenished("1001", "R-7", 100))
        .when(new ReplenishStockCommand("1001", "R-7", 100))
        .expectNoEvents()
        .expectResultMessagePayload(new SkuState("1001", 500, 2, 600, false));
  }

  @Test
  void refusesAReplenishmentIdReusedWithAnotherQuantity() {
    fixture
        .given(new SkuRegistered("1001", 500, 2), new StockReplenished("1001", "R-7", 100))
        .when(new ReplenishStockCommand("1001", "R-7", 50))
        .expectNoEvents()
        .expectException(ReplenishmentIdReusedException.class);
  }

  @Test
  void aChangedLimitAloneIsAnotherRegistration() {
    fixture
        .given(new SkuRegistered("1001", 500, 2))
        .when(new RegisterSkuCommand("1001", 500, null))
        .expectNoEvents()
        .expectException(
            new CustomTypeSafeMatcher<SkuAlreadyRegisteredException>("the existing registration") {
              @Override
              protected boolean matchesSafely(SkuAlreadyRegisteredException exception) {
                return exception.existing().equals(new SkuState("1001", 500, 2, 500, false));
              }
            });
  }

  /** The gate that took a negative adjustment is still the gate in epoch 3 only. */
  private static final io.stockade.command.admission.AdmissionFence EPOCH_3 =
      epoch -> {
        if (epoch != 3) {
          throw new io.stockade.command.admission.GateEpochChangedException(epoch, 3, "OPEN");
        }
      };

  @Test
  void recordsANegativeAdjustmentTakenByTheGateStillOpenOncePerId() {
    fixture.registerInjectableResource(EPOCH_3);
    io.stockade.api.sku.AdjustStockCommand taken =
        new io.stockade.api.sku.AdjustStockCommand(
                "1001", "A-1", -5, io.stockade.api.sku.AdjustmentReason.DAMAGED, "pallet 3")
            .takenIn(3);
    io.stockade.api.sku.StockAdjusted adjusted =
        new io.stockade.api.sku.StockAdjusted(
            "1001", "A-1", -5, io.stockade.api.sku.AdjustmentReason.DAMAGED, "pallet 3");
    fixture
        .given(new SkuRegistered("1001", 500, 2))
        .when(taken)
        .expectEvents(adjusted)
        .expectResultMessagePayload(true);
    fixture
        .given(new SkuRegistered("1001", 500, 2), adjusted)
        .when(taken)
        .expectNoEvents()
        .expectResultMessagePayload(false);
    fixture
        .given(new SkuRegistered("1001", 500, 2), adjusted)
        .when(
            new io.stockade.api.sku.AdjustStockCommand(
                "1001", "A-1", -5, io.stockade.api.sku.AdjustmentReason.SHRINKAGE, null))
        .expectNoEvents()
        .expectException(AdjustmentIdReusedException.class);
  }

  @Test
  void refusesTheRecordOfATakeByAGateSinceRebuilt() {
    fixture.registerInjectableResource(EPOCH_3);
    fixture
        .given(new SkuRegistered("1001", 500, 2))
        .when(
            new io.stockade.api.sku.AdjustStockCommand(
                    "1001", "A-1", -5, io.stockade.api.sku.AdjustmentReason.DAMAGED, null)
                .takenIn(2))
        .expectNoEvents()
        .expectException(io.stockade.command.admission.GateEpochChangedException.class);
  }

  @Test
  void theOpeningMayChangeUntilTheSaleOpensByTheGatesClockAndItsEndAfter() {
    java.time.Instant opens = java.time.Instant.parse("2030-01-01T10:00:00Z");
    java.time.Instant closes = java.time.Instant.parse("2030-01-01T12:00:00Z");
    io.stockade.api.sku.SaleScheduled scheduled =
        new io.stockade.api.sku.SaleScheduled("1001", opens, closes, 0);
    fixture
        .given(new SkuRegistered("1001", 500, 2), scheduled)
        .when(
            new io.stockade.api.sku.ScheduleSaleCommand(
                "1001", opens.plusSeconds(60), closes, 0, opens.minusSeconds(1)))
        .expectEvents(
            new io.stockade.api.sku.SaleScheduled("1001", opens.plusSeconds(60), closes, 0));
    fixture
        .given(new SkuRegistered("1001", 500, 2), scheduled)
        .when(
            new io.stockade.api.sku.ScheduleSaleCommand(
                "1001", opens.plusSeconds(60), closes, 0, opens))
        .expectNoEvents()
        .expectException(SaleAlreadyOpenException.class);
    fixture
        .given(new SkuRegistered("1001", 500, 2), scheduled)
        .when(
            new io.stockade.api.sku.ScheduleSaleCommand(
                "1001", opens, closes.plusSeconds(3600), 0, opens.plusSeconds(1)))
        .expectEvents(
            new io.stockade.api.sku.SaleScheduled("1001", opens, closes.plusSeconds(3600), 0));
    fixture
        .given(new SkuRegistered("1001", 500, 2))
        .when(
            new io.stockade.api.sku.ScheduleSaleCommand(
                "1001", opens, null, 0, opens.minusSeconds(60)))
        .expectNoEvents()
        .expectException(SaleAlreadyOpenException.class);
  }

  @Test
  void aPauseAndAResumeAreStoredOnceEach() {
    fixture
        .given(new SkuRegistered("1001", 500, 2))
        .when(new io.stockade.api.sku.PauseSaleCommand("1001", "price error"))
        .expectEvents(new io.stockade.api.sku.SalePaused("1001", "price error"));
    fixture
        .given(new SkuRegistered("1001", 500, 2), new io.stockade.api.sku.SalePaused("1001", "x"))
        .when(new io.stockade.api.sku.PauseSaleCommand("1001", "again"))
        .expectNoEvents();
    fixture
        .given(new SkuRegistered("1001", 500, 2), new io.stockade.api.sku.SalePaused("1001", "x"))
        .when(new io.stockade.api.sku.ResumeSaleCommand("1001"))
        .expectEvents(new io.stockade.api.sku.SaleResumed("1001"));
    fixture
        .given(new SkuRegistered("1001", 500, 2))
        .when(new io.stockade.api.sku.ResumeSaleCommand("1001"))
        .expectNoEvents();
  }
}
