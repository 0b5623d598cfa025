package io.stockade.query.stock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoMoreInteractions;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockReplenished;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/**
 * The stock projection alone: what each event changes of which SKU, with the read model's tables
 * replaced by a mock (their SQL is covered by {@code StockProjectionIntegrationTest}).
 */
class StockProjectionTest {

  private static final Instant AT = Instant.parse("2026-11-30T10:00:00Z");

  private final StockRows rows = mock(StockRows.class);
  private final StockProjection projection = new StockProjection(rows, mock(StockLevels.class));

  @Test
  void aRegistrationAddsItsInitialStockAndLimit() {
    SkuRegistered event = new SkuRegistered("sku-1", 500, 2);

    projection.on(event, message("sku-1", event));

    ArgumentCaptor<StockChanges.Change> change = ArgumentCaptor.forClass(StockChanges.Change.class);
    verify(rows).apply(change.capture(), eq(StockChanges.Settings.registration(2)));
    assertThat(change.getValue())
        .returns("sku-1", StockChanges.Change::skuId)
        .returns(AT, StockChanges.Change::occurredAt)
        .returns("SkuRegistered", StockChanges.Change::eventType)
        .returns("sku-1", StockChanges.Change::reference)
        .returns(500L, StockChanges.Change::total)
        .returns(0L, StockChanges.Change::reserved)
        .returns(0L, StockChanges.Change::sold);
    verifyNoMoreInteractions(rows);
  }

  @Test
  void aReplenishmentAddsToTheTotalUnderItsOwnId() {
    StockReplenished event = new StockReplenished("sku-1", "R-9", 40);

    projection.on(event, message("sku-1", event));

    assertThat(single())
        .returns("R-9", StockChanges.Change::reference)
        .returns(40L, StockChanges.Change::total)
        .returns(0L, StockChanges.Change::reserved)
        .returns(0L, StockChanges.Change::sold);
  }

  @Test
  void aReservationReservesEveryLineOfItsSku() {
    StockReserved event =
        new StockReserved(
            "O-1",
            "u-1",
            List.of(new ReservationLine("a", 2), new ReservationLine("b", 1)),
            AT,
            AT.plusSeconds(900),
            1,
            1);
    EventMessage<?> message = message("O-1", event);

    projection.on(event, message);

    List<StockChanges.Change> changes = all(2);
    assertThat(changes)
        .extracting(
            StockChanges.Change::skuId,
            StockChanges.Change::reserved,
            StockChanges.Change::total,
            StockChanges.Change::sold,
            StockChanges.Change::reference,
            StockChanges.Change::eventId)
        .containsExactly(
            tuple("a", 2L, 0L, 0L, "O-1", message.getIdentifier()),
            tuple("b", 1L, 0L, 0L, "O-1", message.getIdentifier()));
  }

  @Test
  void aConfirmationTurnsReservedUnitsIntoSoldOnes() {
    StockConfirmed event =
        new StockConfirmed("O-1", "u-1", List.of(new ReservationLine("a", 3)), AT);

    projection.on(event, message("O-1", event));

    assertThat(single())
        .returns(-3L, StockChanges.Change::reserved)
        .returns(3L, StockChanges.Change::sold)
        .returns(0L, StockChanges.Change::total)
        .returns("StockConfirmed", StockChanges.Change::eventType);
  }

  @Test
  void aReleaseMakesReservedUnitsAvailableAgain() {
    StockReleased event =
        new StockReleased("O-1", "u-1", List.of(new ReservationLine("a", 3)), "EXPIRED", AT);

    projection.on(event, message("O-1", event));

    assertThat(single())
        .returns(-3L, StockChanges.Change::reserved)
        .returns(0L, StockChanges.Change::sold)
        .returns(0L, StockChanges.Change::total);
  }

  @Test
  void aResetEmptiesTheReadModel() {
    projection.reset();

    verify(rows).clear();
  }

  private StockChanges.Change single() {
    return all(1).get(0);
  }

  private List<StockChanges.Change> all(int count) {
    ArgumentCaptor<StockChanges.Change> change = ArgumentCaptor.forClass(StockChanges.Change.class);
    verify(rows, times(count)).apply(change.capture(), eq(StockChanges.Settings.NONE));
    return change.getAllValues();
  }

  private static <T> EventMessage<T> message(String aggregateId, T payload) {
    return new GenericDomainEventMessage<>(
        "Aggregate", aggregateId, 0, payload, Map.of(), UUID.randomUUID().toString(), AT);
  }
}
