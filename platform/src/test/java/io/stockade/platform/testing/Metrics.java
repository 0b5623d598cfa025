package io.stockade.platform.testing;

import java.util.Arrays;
import java.util.OptionalDouble;

/** A scrape of a service's {@code /actuator/prometheus}, read one sample at a time. */
public record Metrics(String text) {

  public static Metrics scrape(ApiClient http) {
    var response = http.getText("/actuator/prometheus");
    if (response.getStatusCode().value() != 200) {
      throw new AssertionError("/actuator/prometheus answered " + response.getStatusCode());
    }
    return new Metrics(response.getBody());
  }

  /**
   * The value of the sample {@code name} whose labels include every {@code label="value"} pair
   * given, e.g. {@code value("stockade_admissions_total", "outcome", "admitted")}; empty when there
   * is none.
   */
  public OptionalDouble value(String name, String... labels) {
    if (labels.length % 2 != 0) {
      throw new IllegalArgumentException("labels come in name, value pairs");
    }
    return text.lines()
        .filter(line -> line.startsWith(name + "{") || line.startsWith(name + " "))
        .filter(
            line -> {
              String head = line.substring(0, line.lastIndexOf(' '));
              for (int i = 0; i < labels.length; i += 2) {
                if (!head.contains(labels[i] + "=\"" + labels[i + 1] + "\"")) {
                  return false;
                }
              }
              return true;
            })
        .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .findFirst();
  }

  /** The value, or 0 when the sample does not exist yet (a counter never incremented). */
  public double valueOrZero(String name, String... labels) {
    return value(name, labels).orElse(0);
  }

  @Override
  public String toString() {
    return Arrays.toString(text.lines().filter(line -> line.startsWith("stockade_")).toArray());
  }
}
