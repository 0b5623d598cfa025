package io.stockade.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.stockade.platform.testing.EventTypeTests;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Every event reaches this service's code through its stream's fold ({@code SkuEvent.Fold}, {@code
 * ReservationEvent.Fold}), which the compiler checks is complete; a type test on one event would be
 * a place a new event is silently skipped.
 */
class EventFoldsTest {

  @Test
  void noCodeTestsForOneEventOutsideTheFolds() {
    assertThat(EventTypeTests.in(Path.of("src/main/java"))).isEmpty();
  }
}
