package io.stockade.query.replay;

import io.stockade.platform.eventstore.EventTableFold;
import io.stockade.platform.eventstore.EventTableFold.StoredEvent;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * A read model that a replay rebuilds beside the live one: into copies of its tables (named as its
 * own with a suffix), first in bulk from one read of the event table ({@link EventTableFold}), then
 * event by event from where that read ended, as its processor would. The rows written must be
 * exactly those the processor would have written; the copies then replace the model's tables.
 */
public interface ReadModelFold {

  /** The processor whose model this folds, as named in {@code stockade.replay.processors}. */
  String processor();

  /** The model's tables, by their own names. */
  List<String> tables();

  /** The payload types the model handles, by class name. */
  Map<String, Class<?>> eventTypes();

  /**
   * Starts a fold into the empty copies of the tables named with {@code suffix}, in one
   * transaction.
   *
   * @param writes where the fold's statements go: each runs once, in the order given, on the thread
   *     of the replay's transaction, while the fold goes on folding on another; a statement must
   *     use only what it was given, never the writer's state
   */
  Writer start(Executor writes, String suffix);

  /**
   * The processor's own writes, into the copies named with {@code suffix}: events after a fold's
   * end, in a unit of work whose commit writes them, in the caller's transaction. Events the copies
   * hold already change nothing, as they do in the model.
   */
  Writer follow(String suffix);

  /**
   * One fold's writes; holds a bounded amount in memory, whatever the number of events. Called from
   * one thread.
   */
  interface Writer {

    /** Applies one event of the {@link #eventTypes()}, in global-index order. */
    void accept(StoredEvent event);

    /** Writes what is still held; the fold has ended. */
    void finish();
  }
}
