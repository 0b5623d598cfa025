package io.stockade.command.admission.redis;

import io.stockade.api.reservation.ReservationLine;
import java.util.ArrayList;
import java.util.List;

/** The {@code lines} field of an intent record: {@code "sku qty sku qty ..."}. */
final class IntentLines {

  private IntentLines() {}

  static List<ReservationLine> parse(String recorded) {
    String[] parts = recorded.trim().split(" ");
    if (parts.length % 2 != 0) {
      throw new IllegalStateException("Malformed intent lines: " + recorded);
    }
    List<ReservationLine> lines = new ArrayList<>();
    for (int i = 0; i < parts.length; i += 2) {
      lines.add(new ReservationLine(parts[i], Integer.parseInt(parts[i + 1])));
    }
    return lines;
  }
}
