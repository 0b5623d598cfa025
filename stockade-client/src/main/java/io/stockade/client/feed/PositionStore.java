package io.stockade.client.feed;

/**
 * Where a {@link FeedConsumer} keeps the position it has reached: the last event its handler
 * applied. An order service that applies events to its own database keeps it there, in the
 * transaction that applies them (exactly once); {@link FilePositionStore} keeps it in a file (at
 * least once: a crash between an event's handling and its save repeats that event).
 */
public interface PositionStore {

  /** The position stored, 0 when none is (the feed's beginning). */
  long load();

  /** Stores {@code position}; done when it returns. */
  void save(long position);
}
