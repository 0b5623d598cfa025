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
}
