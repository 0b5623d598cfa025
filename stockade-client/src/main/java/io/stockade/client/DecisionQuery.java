package io.stockade.client;

import java.time.Instant;

/**
 * Which decisions to read: {@code from} (included) and {@code to} (not included), a page (0-based)
 * of {@code size} (1 to 1000); null members are left to the service's defaults.
 */
public record DecisionQuery(Instant from, Instant to, Integer page, Integer size) {

  /** The first page, of the service's default size, over all time. */
  public static final DecisionQuery FIRST_PAGE = new DecisionQuery(null, null, null, null);

  String parameters() {
    return Query.of()
        .add("from", from)
        .add("to", to)
        .add("page", page)
        .add("size", size)
        .toString();
  }
}
