package io.stockade.command;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.axonframework.modelling.command.ConcurrencyException;

/**
 * A command on an existing aggregate that lost the race for the stream's next sequence number to
 * another instance (Axon appends optimistically; the event store's unique key decides) is sent
 * again: the aggregate is loaded anew, with the winner's event, and decides on that state, as if
 * the two requests had come one after the other. Bounded, since every retry means another writer
 * won: a command that loses every time changed nothing, and is answered 503 {@code
 * event-store-unavailable} with {@code Retry-After}, never a 500.
 */
public final class RacedAppends {

  /** Tries per command: each lost try means another command was stored in between. */
  static final int ATTEMPTS = 10;

  private RacedAppends() {}

  /**
   * Sends through {@code send}, again while it loses the race to another writer.
   *
   * @throws io.stockade.platform.web.ProblemException 503 when it lost every try
   */
  public static <R> R retried(Supplier<R> send) {
    for (int attempt = 1; ; attempt++) {
      try {
        return send.get();
      } catch (ConcurrencyException lost) {
        if (attempt == ATTEMPTS) {
          throw EventStoreOutage.unavailable(
              "Other requests kept changing the same record; this one changed nothing. Retry it.");
        }
        // A little jitter spreads writers that keep meeting on one stream.
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_000_000L * attempt));
      }
    }
  }
}
