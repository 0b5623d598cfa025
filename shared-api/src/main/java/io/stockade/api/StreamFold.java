package io.stockade.api;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.sku.SkuEvent;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A fold of the events of both streams, and the one place a payload read as an {@code Object} (from
 * the event table, from a message) becomes a call of a typed fold. Also the one list of each
 * stream's events: the permitted subclasses of its sealed interface, so that no fold names the
 * events it reads by hand.
 */
public interface StreamFold extends SkuEvent.Fold, ReservationEvent.Fold {

  /** The events of a SKU's stream, by class name. */
  Map<String, Class<?>> SKU_EVENTS = byName(Stream.of(SkuEvent.class.getPermittedSubclasses()));

  /** The events of a reservation's stream, by class name. */
  Map<String, Class<?>> RESERVATION_EVENTS =
      byName(Stream.of(ReservationEvent.class.getPermittedSubclasses()));

  /** The events of both streams, by class name. */
  Map<String, Class<?>> EVENTS =
      byName(Stream.concat(SKU_EVENTS.values().stream(), RESERVATION_EVENTS.values().stream()));

  /**
   * Hands {@code payload} to {@code fold} if it is an event of either stream; answers whether it
   * was.
   */
  static boolean apply(Object payload, StreamFold fold) {
    if (payload instanceof SkuEvent event) {
      event.applyTo(fold);
      return true;
    }
    if (payload instanceof ReservationEvent event) {
      event.applyTo(fold);
      return true;
    }
    return false;
  }

  /**
   * The payload as an event of a reservation's stream.
   *
   * @throws IllegalArgumentException if it is not one
   */
  static ReservationEvent reservationEvent(Object payload) {
    if (!(payload instanceof ReservationEvent event)) {
      throw new IllegalArgumentException("Not a reservation event: " + payload);
    }
    return event;
  }

  private static Map<String, Class<?>> byName(Stream<Class<?>> types) {
    return types.collect(Collectors.toUnmodifiableMap(Class::getName, Function.identity()));
  }
}
