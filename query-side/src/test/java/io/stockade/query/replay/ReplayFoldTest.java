package io.stockade.query.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stockade.platform.eventstore.EventTableFold.StoredEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.junit.jupiter.api.Test;

/**
 * How a replay's fold shares its work between threads: the models' statements run on the caller's
 * thread (the transaction's), in the order the folds handed them over, while the events are folded
 * on another; and a failure on either side ends the fold with that failure, the other threads
 * stopped, never a fold waiting for good. The event table is a stand-in here; the integration tests
 * fold a real one.
 */
class ReplayFoldTest {

  private static final String PROCESSOR = "a-projection";

  /** Events 1 to {@code count}, each a string payload. */
  private static ReplayFold.EventTable table(int count) {
    return (types, sink) -> {
      for (int i = 1; i <= count; i++) {
        sink.accept(
            new StoredEvent(i, "a-" + i, 0, "2026-12-02T10:00:00Z", "event " + i, "id-" + i));
      }
      return GapAwareTrackingToken.newInstance(count, List.of());
    };
  }

  /** A model that hands over one statement per {@code every} events and one at the end. */
  private static final class Model implements ReadModelFold {

    final List<String> ran = new CopyOnWriteArrayList<>();
    final List<String> threads = new CopyOnWriteArrayList<>();
    final int every;
    final int failingStatement;
    final int failingEvent;

    /**
     * @param failingStatement the statement handed over after this many events fails (0: none)
     * @param failingEvent folding this event fails (0: none)
     */
    Model(int every, int failingStatement, int failingEvent) {
      this.every = every;
      this.failingStatement = failingStatement;
      this.failingEvent = failingEvent;
    }

    @Override
    public String processor() {
      return PROCESSOR;
    }

    @Override
    public List<String> tables() {
      return List.of("model");
    }

    @Override
    public Map<String, Class<?>> eventTypes() {
      return Map.of(String.class.getName(), String.class);
    }

    @Override
    public Writer follow(String suffix) {
      throw new UnsupportedOperationException("a fold's test has no processor");
    }

    @Override
    public Writer start(Executor writes, String suffix) {
      return new Writer() {
        int seen;

        @Override
        public void accept(StoredEvent event) {
          threads.add("fold:" + Thread.currentThread().getName());
          seen++;
          if (seen == failingEvent) {
            throw new IllegalStateException("folding failed at " + seen);
          }
          if (seen % every == 0) {
            String statement = "up to " + seen;
            writes.execute(() -> run(statement));
          }
        }

        @Override
        public void finish() {
          writes.execute(() -> run("finish at " + seen));
        }
      };
    }

    private void run(String statement) {
      threads.add("write:" + Thread.currentThread().getName());
      if (statement.equals("up to " + failingStatement)) {
        throw new IllegalStateException("statement failed: " + statement);
      }
      ran.add(statement);
    }
  }

  @Test
  void statementsRunOnTheCallersThreadInTheirOrderAndTheFoldAnswersItsEnd() {
    Model model = new Model(1000, 0, 0);
    ReplayFold fold = new ReplayFold(table(50_000));

    GapAwareTrackingToken end = fold.fold("r", List.of(model), "_copy", 50_000, reached -> {});

    assertThat(end).isEqualTo(GapAwareTrackingToken.newInstance(50_000, List.of()));
    assertThat(model.ran).hasSize(51);
    for (int i = 0; i < 50; i++) {
      assertThat(model.ran.get(i)).isEqualTo("up to " + (i + 1) * 1000);
    }
    assertThat(model.ran.get(50)).isEqualTo("finish at 50000");
    String caller = Thread.currentThread().getName();
    assertThat(model.threads.stream().filter(t -> t.startsWith("write:")).distinct())
        .containsExactly("write:" + caller);
    assertThat(model.threads.stream().filter(t -> t.startsWith("fold:")).distinct())
        .containsExactly("fold:replay-fold");
  }

  @Test
  void aFailedStatementEndsTheFoldWithItsFailureAndStopsTheOtherThreads() {
    Model model = new Model(100, 3000, 0);
    ReplayFold fold = new ReplayFold(table(1_000_000));

    assertThatThrownBy(() -> fold.fold("r", List.of(model), "_copy", 1_000_000, reached -> {}))
        .hasMessage("statement failed: up to 3000");

    assertThat(model.ran).hasSize(29).last().isEqualTo("up to 2900");
    assertFoldThreadsEnd();
  }

  @Test
  void aFailedFoldEndsWithItsFailureAfterTheStatementsHandedOverBeforeIt() {
    Model model = new Model(100, 0, 5050);
    ReplayFold fold = new ReplayFold(table(1_000_000));

    assertThatThrownBy(() -> fold.fold("r", List.of(model), "_copy", 1_000_000, reached -> {}))
        .hasMessage("folding failed at 5050");

    assertThat(model.ran).hasSize(50).last().isEqualTo("up to 5000");
    assertFoldThreadsEnd();
  }

  private static void assertFoldThreadsEnd() {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (foldThreads() > 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(foldThreads()).isZero();
  }

  private static long foldThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .filter(t -> t.getName().startsWith("replay-fold"))
        .count();
  }
}
