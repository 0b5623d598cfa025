package io.stockade.query.replay;

import io.stockade.api.sku.SkuRegistered;
import io.stockade.platform.eventstore.EventTableFold.StoredEvent;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One more read model for the replay tests, whose fold, while held, waits at its first event: a
 * replay cannot finish building until the test lets it go, on whichever instance builds it (or
 * fails there, when told to). Its table {@code held_model} holds nothing; its processor handles
 * registrations and does nothing. An instance runs it with {@code stockade.replay.processors}
 * naming {@link #PROCESSOR} too (its processor pooled), and the two classes here as beans.
 */
final class HeldModel {

  static final String PROCESSOR = "held-projection";

  /** The properties of an instance with the held model. */
  static final List<String> PROPERTIES =
      List.of(
          "stockade.replay.processors=stock-projection,reservation-projection," + PROCESSOR,
          "axon.eventhandling.processors." + PROCESSOR + ".mode=pooled");

  private static volatile CountDownLatch gate = new CountDownLatch(0);
  private static volatile CountDownLatch reached = new CountDownLatch(1);
  private static volatile boolean failing;

  private HeldModel() {}

  /** The model's table, for the replay to copy. */
  static void createTable(JdbcTemplate jdbc) {
    jdbc.execute("CREATE TABLE IF NOT EXISTS held_model (id INTEGER PRIMARY KEY)");
  }

  static void hold() {
    reached = new CountDownLatch(1);
    gate = new CountDownLatch(1);
  }

  static void release() {
    gate.countDown();
    failing = false;
  }

  /** The next fold fails at its first event. */
  static void fail() {
    failing = true;
  }

  /** Whether a replay's fold has reached the hold (waits for it a minute at most). */
  static boolean awaitHeld() throws InterruptedException {
    return reached.await(60, TimeUnit.SECONDS);
  }

  /** The held model's processor: a replay stops and starts it with the others. */
  @ProcessingGroup(PROCESSOR)
  static class Projection {

    @EventHandler
    void on(SkuRegistered event) {}
  }

  /** The held model's fold. */
  static class Fold implements ReadModelFold {

    @Override
    public String processor() {
      return PROCESSOR;
    }

    @Override
    public List<String> tables() {
      return List.of("held_model");
    }

    @Override
    public Map<String, Class<?>> eventTypes() {
      return Map.of(SkuRegistered.class.getName(), SkuRegistered.class);
    }

    @Override
    public Writer start(Executor writes, String suffix) {
      return new Writer() {
        @Override
        public void accept(StoredEvent event) {
          if (failing) {
            throw new IllegalStateException("the held model's fold failed");
          }
          CountDownLatch current = gate;
          if (current.getCount() > 0) {
            reached.countDown();
            try {
              current.await(120, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        }

        @Override
        public void finish() {}
      };
    }

    @Override
    public Writer follow(String suffix) {
      return start(Runnable::run, suffix);
    }
  }
}
