package io.stockade.query.replay;

import io.stockade.platform.eventstore.EventTableFold;
import io.stockade.platform.eventstore.EventTableFold.StoredEvent;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * A read model that a replay rebuilds in bulk, from one read of the event table ({@link
 * EventTableFold}), instead of through its processor event by event. The processor's reset handler
 * has emptied the model's tables in the same transaction; the rows written must be exactly those
 * the processor would have written, and its segments then continue from the fold's end.
 */
public interface ReadModelFold {

  /** The processor whose model this folds, as named in {@code stockade.replay.processors}. */
  String processor();

  /** The payload types the model handles, by class name. */
  Map<String, Class<?>> eventTypes();

  /**
   * Starts a fold into empty tables, in the replay's transaction.
   *
   * @param writes where the fold's statements go: each runs once, in the order given, on the thread
   *     of the replay's transaction, while the fold goes on folding on another; a statement must
   *     use only what it was given, never the writer's state
   */
  Writer start(Executor writes);

  /**
   * One fold's writes; holds a bounded amount in memory, whatever the number of events. Called from
   * one thread, not the transaction's.
   */
  interface Writer {

    /** Applies one event of the {@link #eventTypes()}, in global-index order. */
    void accept(StoredEvent event);

    /** Writes what is still held; the fold has ended. */
    void finish();
  }
}
