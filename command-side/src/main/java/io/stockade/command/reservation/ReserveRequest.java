package io.stockade.command.reservation;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.platform.web.Identifier;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The body of {@code POST /api/reservations}. */
record ReserveRequest(
    @Identifier String reservationId,
    @Identifier String userId,
    @NotEmpty List<@NotNull @Valid Line> lines,
    @Positive Long holdSeconds) {

  record Line(@Identifier String skuId, @NotNull @Positive Integer quantity) {}

  /**
   * One line per SKU, in the order each SKU first appears, quantities added: the "merged deduction"
   * of one order. Sums are kept in a long so that no merge overflows.
   */
  List<MergedLine> mergedLines() {
    return merge(lines);
  }

  /** {@link #mergedLines()} of any lines: also a partial confirmation's. */
  static List<MergedLine> merge(List<Line> lines) {
    Map<String, Long> quantities = new LinkedHashMap<>();
    for (Line line : lines) {
      quantities.merge(line.skuId(), line.quantity().longValue(), Long::sum);
    }
    List<MergedLine> merged = new ArrayList<>();
    quantities.forEach((sku, quantity) -> merged.add(new MergedLine(sku, quantity)));
    return merged;
  }

  record MergedLine(String skuId, long quantity) {

    ReservationLine toLine() {
      return new ReservationLine(skuId, Math.toIntExact(quantity));
    }
  }
}
