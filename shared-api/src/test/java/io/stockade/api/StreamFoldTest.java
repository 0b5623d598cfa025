package io.stockade.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.api.reservation.ReservationEvent;
import io.stockade.api.sku.SkuEvent;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class StreamFoldTest {

  @Test
  void everyFoldHasOneAbstractMethodPerEventOfItsStream() {
    assertOneAbstractMethodPerEvent(SkuEvent.Fold.class, SkuEvent.class);
    assertOneAbstractMethodPerEvent(ReservationEvent.Fold.class, ReservationEvent.class);
  }

  @Test
  void everyEventIsHandedToTheFoldMethodOfItsOwnType() {
    for (Class<?> type : allEvents()) {
      Object event = sample(type);
      List<Object[]> calls = new ArrayList<>();
      StreamFold fold =
          (StreamFold)
              Proxy.newProxyInstance(
                  StreamFold.class.getClassLoader(),
                  new Class<?>[] {StreamFold.class},
                  (proxy, method, args) -> {
                    calls.add(new Object[] {method, args[0]});
                    return null;
                  });

      assertThat(StreamFold.apply(event, fold)).isTrue();

      assertThat(calls).as("calls of the fold for %s", type.getSimpleName()).hasSize(1);
      Method called = (Method) calls.get(0)[0];
      assertThat(called.getName()).isEqualTo("on");
      assertThat(called.getParameterTypes()).containsExactly(type);
      assertThat(calls.get(0)[1]).isSameAs(event);
    }
  }

  @Test
  void listsEveryEventOfBothStreamsByClassName() {
    assertThat(StreamFold.EVENTS.values()).containsExactlyInAnyOrderElementsOf(allEvents());
    assertThat(StreamFold.SKU_EVENTS.values())
        .containsExactlyInAnyOrder(SkuEvent.class.getPermittedSubclasses());
    assertThat(StreamFold.RESERVATION_EVENTS.values())
        .containsExactlyInAnyOrder(ReservationEvent.class.getPermittedSubclasses());
    StreamFold.EVENTS.forEach((name, type) -> assertThat(type.getName()).isEqualTo(name));
  }

  @Test
  void leavesAnyOtherPayloadAlone() {
    StreamFold fold =
        (StreamFold)
            Proxy.newProxyInstance(
                StreamFold.class.getClassLoader(),
                new Class<?>[] {StreamFold.class},
                (proxy, method, args) -> {
                  throw new AssertionError("called " + method);
                });

    assertThat(StreamFold.apply("not an event", fold)).isFalse();
  }

  private static void assertOneAbstractMethodPerEvent(Class<?> fold, Class<?> stream) {
    List<Method> methods =
        Arrays.stream(fold.getDeclaredMethods()).filter(m -> !m.isSynthetic()).toList();
    assertThat(methods).allMatch(m -> Modifier.isAbstract(m.getModifiers()) && !m.isDefault());
    assertThat(methods.stream().map(m -> m.getParameterTypes()[0]))
        .containsExactlyInAnyOrder(stream.getPermittedSubclasses());
  }

  private static List<Class<?>> allEvents() {
    return Stream.concat(
            Stream.of(SkuEvent.class.getPermittedSubclasses()),
            Stream.of(ReservationEvent.class.getPermittedSubclasses()))
        .toList();
  }

  /** An instance of the event record, its components empty or zero. */
  private static Object sample(Class<?> type) {
    RecordComponent[] components = type.getRecordComponents();
    Class<?>[] types =
        Arrays.stream(components).map(RecordComponent::getType).toArray(Class[]::new);
    Object[] values = Arrays.stream(types).map(StreamFoldTest::empty).toArray();
    try {
      return type.getDeclaredConstructor(types).newInstance(values);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError("Cannot make a " + type.getSimpleName(), e);
    }
  }

  private static Object empty(Class<?> type) {
    if (type == int.class) {
      return 0;
    }
    if (type == long.class) {
      return 0L;
    }
    if (type == List.class) {
      return List.of();
    }
    return null;
  }
}
