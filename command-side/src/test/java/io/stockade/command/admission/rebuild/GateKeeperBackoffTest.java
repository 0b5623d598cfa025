package io.stockade.command.admission.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The pause between two attempts to rebuild a gate whose rebuild failed. */
class GateKeeperBackoffTest {

  @Test
  void doublesFromOneSecondToThirtySeconds() {
    assertThat(GateKeeper.backoff(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(GateKeeper.backoff(2)).isEqualTo(Duration.ofSeconds(2));
    assertThat(GateKeeper.backoff(5)).isEqualTo(Duration.ofSeconds(16));
    assertThat(GateKeeper.backoff(6)).isEqualTo(Duration.ofSeconds(30));
    assertThat(GateKeeper.backoff(1_000)).isEqualTo(Duration.ofSeconds(30));
  }
}
