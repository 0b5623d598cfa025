package io.stockade.platform.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * When the warm-up finds the JIT settled: only over a full window, by the compiling time of the
 * last window alone (not of the whole run), and never when that time cannot be read or the share is
 * 0.
 */
class CompilerSettlingTest {

  private static final long SECOND = 1_000_000_000L;

  private final AtomicLong compiling = new AtomicLong();
  private final CompilerSettling settling =
      new CompilerSettling(Duration.ofSeconds(10), 0.05, compiling::get);

  @Test
  void aBusyJitIsNotSettledAndAQuietOneIsAfterAFullWindow() {
    // 800 ms of compiling a second for 30 s: busy.
    for (int s = 0; s <= 30; s++) {
      compiling.set(800L * s);
      assertThat(settling.settled(s * SECOND)).as("at %d s", s).isFalse();
    }
    // Then 40 ms a second: 4% of a window, but the window is not all quiet until 10 s later.
    long base = compiling.get();
    for (int s = 31; s < 40; s++) {
      compiling.set(base + 40L * (s - 30));
      assertThat(settling.settled(s * SECOND)).as("at %d s", s).isFalse();
    }
    compiling.set(base + 40L * 10);
    assertThat(settling.settled(40 * SECOND)).isTrue();
    assertThat(settling.lastWindowMillis()).isEqualTo(400);
  }

  @Test
  void notBeforeAFullWindowHasPassed() {
    assertThat(settling.settled(0)).isFalse();
    assertThat(settling.settled(5 * SECOND)).isFalse();
    assertThat(settling.settled(9 * SECOND)).isFalse();
    assertThat(settling.settled(10 * SECOND)).isTrue();
  }

  @Test
  void aBurstInTheWindowKeepsItUnsettled() {
    for (int s = 0; s <= 10; s++) {
      settling.settled(s * SECOND);
    }
    compiling.set(600); // 6% of the window at once
    for (int s = 11; s <= 20; s++) {
      assertThat(settling.settled(s * SECOND)).as("at %d s", s).isFalse();
    }
    // The burst has left the window.
    assertThat(settling.settled(21 * SECOND)).isTrue();
  }

  @Test
  void neverWithoutTheCompilersTimeOrWithAShareOfZero() {
    CompilerSettling unknown = new CompilerSettling(Duration.ofSeconds(10), 0.05, () -> -1);
    CompilerSettling off = new CompilerSettling(Duration.ofSeconds(10), 0, compiling::get);
    for (int s = 0; s <= 60; s++) {
      assertThat(unknown.settled(s * SECOND)).isFalse();
      assertThat(off.settled(s * SECOND)).isFalse();
    }
  }

  @Test
  void theJvmsOwnCompilersAreRead() {
    // HotSpot, which runs the build, reports its compilers' time.
    assertThat(CompilerSettling.jvmCompilers().getAsLong()).isGreaterThanOrEqualTo(0);
  }
}
