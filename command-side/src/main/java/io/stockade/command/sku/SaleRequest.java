package io.stockade.command.sku;

import io.stockade.api.sku.SaleWindow;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Instant;

/**
 * A sale's window as {@code PUT /api/skus/{skuId}/sale} and a registration's {@code sale} member
 * take it.
 *
 * @param closesAt null for no end
 * @param prequeueSeconds 0 (none) to 3,600; 0 when not given
 */
record SaleRequest(
    @NotNull Instant opensAt, Instant closesAt, @Min(0) @Max(3600) Integer prequeueSeconds) {

  @AssertTrue(message = "closesAt must be after opensAt")
  boolean isClosesAtAfterOpensAt() {
    return opensAt == null || closesAt == null || closesAt.isAfter(opensAt);
  }

  SaleWindow window() {
    return new SaleWindow(opensAt, closesAt, prequeueSeconds == null ? 0 : prequeueSeconds);
  }
}
