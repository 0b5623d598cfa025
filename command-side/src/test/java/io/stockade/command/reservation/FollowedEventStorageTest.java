package io.stockade.command.reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stockade.api.draw.ReservationDrawn;
import io.stockade.api.draw.ReservationQueued;
import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.DrawDecided;
import io.stockade.api.sku.SalePaused;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockAdjusted;
import java.util.function.Predicate;
import org.axonframework.eventhandling.EventHandler;
import org.junit.jupiter.api.Test;

/** Which payloads the gate follower's reading of the store reads. */
class FollowedEventStorageTest {

  private final Predicate<String> handled = FollowedEventStorage.handledBy(GateFollower.class);

  @Test
  void readsThePayloadsOfTheEventsTheFollowerHandles() {
    for (Class<?> type :
        new Class<?>[] {
          SkuRegistered.class,
          StockAdjusted.class,
          SalePaused.class,
          DrawDecided.class,
          StockConfirmed.class,
          StockReleased.class,
          ReservationExtended.class
        }) {
      assertThat(handled.test(type.getName())).as(type.getSimpleName()).isTrue();
    }
  }

  @Test
  void leavesOutThePayloadsOfTheEventsItDoesNotHandle() {
    for (Class<?> type :
        new Class<?>[] {
          StockReserved.class,
          ReservationAbandoned.class,
          ReservationQueued.class,
          ReservationDrawn.class
        }) {
      assertThat(handled.test(type.getName())).as(type.getSimpleName()).isFalse();
    }
  }

  /** A type the service cannot load is read: whoever handles it will say what it is. */
  @Test
  void readsThePayloadOfATypeItDoesNotKnow() {
    assertThat(handled.test("io.stockade.api.reservation.SomethingNew")).isTrue();
  }

  @Test
  void aHandlerWithNoEventHandlerIsRefused() {
    assertThatThrownBy(() -> FollowedEventStorage.handledBy(String.class))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aHandlerOfAnInterfaceHandlesItsImplementations() {
    Predicate<String> events = FollowedEventStorage.handledBy(AnyEvent.class);
    assertThat(events.test(StockReserved.class.getName())).isTrue();
    assertThat(events.test(String.class.getName())).isTrue();
  }

  static final class AnyEvent {

    @EventHandler
    void on(Object event) {}
  }
}
