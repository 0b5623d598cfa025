package io.stockade.client;

import java.util.ArrayList;
import java.util.List;

/** A query string of the parameters given, the null ones left out. */
final class Query {

  private final List<String> parameters = new ArrayList<>();

  static Query of() {
    return new Query();
  }

  Query add(String name, Object value) {
    if (value != null) {
      parameters.add(name + "=" + ApiCalls.encode(String.valueOf(value)));
    }
    return this;
  }

  /** {@code ?a=1&b=2}, or empty. */
  @Override
  public String toString() {
    return parameters.isEmpty() ? "" : "?" + String.join("&", parameters);
  }
}
