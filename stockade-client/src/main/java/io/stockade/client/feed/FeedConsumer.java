package io.stockade.client.feed;

import io.stockade.client.FeedEvent;
import io.stockade.client.FeedPage;
import io.stockade.client.QueryClient;
import java.time.Duration;
import java.util.Objects;

/**
 * Follows {@code GET /api/events}: asks after the stored position, hands each event to the handler
 * in order, and stores its position once the handler has returned (then the page's {@code next}). A
 * consumer that stops, by a crash or on purpose, and starts again on the same store goes on after
 * the last event handled: nothing is skipped, and nothing repeated but an event whose handling was
 * under way. One thread at a time.
 */
public final class FeedConsumer {

  /** The most events a page may hold. */
  public static final int MOST_PER_PAGE = 1000;

  private final QueryClient queries;
  private final PositionStore positions;
  private final FeedHandler handler;
  private final int limit;

  /**
   * @param limit events per page, 1 to {@value #MOST_PER_PAGE}
   */
  public FeedConsumer(
      QueryClient queries, PositionStore positions, FeedHandler handler, int limit) {
    if (limit < 1 || limit > MOST_PER_PAGE) {
      throw new IllegalArgumentException("limit must be 1 to " + MOST_PER_PAGE + ": " + limit);
    }
    this.queries = Objects.requireNonNull(queries, "queries");
    this.positions = Objects.requireNonNull(positions, "positions");
    this.handler = Objects.requireNonNull(handler, "handler");
    this.limit = limit;
  }

  /**
   * Reads one page after the stored position and handles its events.
   *
   * @return how many events were handled (0: none was ready)
   * @throws FeedHandlingException when the handler threw; the position stays before that event
   */
  public int poll() {
    long after = positions.load();
    FeedPage page = queries.events(after, limit);
    for (FeedEvent event : page.events()) {
      try {
        handler.handle(event);
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        throw new FeedHandlingException(event, e);
      }
      positions.save(event.position());
      after = event.position();
    }
    if (page.next() > after) {
      positions.save(page.next());
    }
    return page.events().size();
  }

  /** Polls until a page comes back empty: every event ready now is handled. */
  public int catchUp() {
    int handled = 0;
    for (int page = poll(); page > 0; page = poll()) {
      handled += page;
    }
    return handled;
  }

  /**
   * Polls until the thread is interrupted, waiting {@code idle} after an empty page. Problems the
   * client gives up on and the handler's failures end it.
   */
  public void run(Duration idle) throws InterruptedException {
    while (!Thread.currentThread().isInterrupted()) {
      if (poll() == 0) {
        Thread.sleep(idle.toMillis());
      }
    }
    throw new InterruptedException("The feed consumer was interrupted");
  }

  /** The handler failed on an event: it was not stored as handled. */
  public static final class FeedHandlingException extends RuntimeException {

    private final transient FeedEvent event;

    FeedHandlingException(FeedEvent event, Exception cause) {
      super("Handling event " + event.position() + " (" + event.type() + ") failed", cause);
      this.event = event;
    }

    /** The event whose handling failed. */
    public FeedEvent event() {
      return event;
    }
  }
}
