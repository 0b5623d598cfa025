package io.stockade.platform.logging;

import java.util.HashMap;
import java.util.Map;
import org.slf4j.MDC;

/**
 * The keys that tie log lines to a request and a reservation: {@code requestId} (the caller's
 * {@code X-Request-Id}, or one made up) and {@code reservationId}. They live in the MDC while a
 * request or a message is handled, and travel from a command to its events as metadata, so the
 * lines of the gate, the command, and the event handlers on other threads and in the other service
 * all carry them.
 */
public final class LoggingContext {

  public static final String REQUEST_ID = "requestId";
  public static final String RESERVATION_ID = "reservationId";

  static final String[] KEYS = {REQUEST_ID, RESERVATION_ID};

  private LoggingContext() {}

  /** Names the reservation the current request is about, for the rest of the request. */
  public static void reservation(String reservationId) {
    MDC.put(RESERVATION_ID, reservationId);
  }

  /** The keys the MDC holds now. */
  static Map<String, String> current() {
    Map<String, String> values = new HashMap<>();
    for (String key : KEYS) {
      String value = MDC.get(key);
      if (value != null) {
        values.put(key, value);
      }
    }
    return values;
  }

  /** Removes the keys; what else the MDC holds stays. */
  static void clear() {
    for (String key : KEYS) {
      MDC.remove(key);
    }
  }
}
