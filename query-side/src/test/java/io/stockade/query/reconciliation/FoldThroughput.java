package io.stockade.query.reconciliation;

import io.stockade.platform.eventstore.EventTableFold;
import java.util.stream.Stream;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.springframework.context.ApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The reconciliation's first fold of the whole store, for {@code bench/replay}: as it runs now (the
 * event table read directly) and through Axon's {@code readEvents}, as it ran before (every event's
 * payload decoded), in events per second.
 */
public final class FoldThroughput {

  private FoldThroughput() {}

  /** Events per second of a first fold of the reconciliation: {@code {table, axon}}. */
  public static double[] measure(ApplicationContext app, long stored) {
    EventStorageEngine storage = app.getBean(EventStorageEngine.class);
    PlatformTransactionManager transactions = app.getBean(PlatformTransactionManager.class);
    long started = System.nanoTime();
    EventStoreFold.Snapshot snapshot =
        new EventStoreFold(storage, app.getBean(EventTableFold.class), transactions).catchUp();
    double table = stored / ((System.nanoTime() - started) / 1e9);
    if (snapshot.skus().isEmpty()) {
      throw new IllegalStateException("The fold found no SKU");
    }
    TransactionTemplate readOnly = new TransactionTemplate(transactions);
    readOnly.setReadOnly(true);
    long[] read = new long[1];
    started = System.nanoTime();
    readOnly.executeWithoutResult(
        status -> {
          try (Stream<? extends TrackedEventMessage<?>> events = storage.readEvents(null, false)) {
            events.forEach(
                event -> {
                  if (event.getPayload() != null) {
                    read[0]++;
                  }
                });
          }
        });
    double axon = stored / ((System.nanoTime() - started) / 1e9);
    if (read[0] != stored) {
      throw new IllegalStateException("readEvents read " + read[0] + " of " + stored + " events");
    }
    return new double[] {table, axon};
  }
}
