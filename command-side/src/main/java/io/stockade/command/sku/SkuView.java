package io.stockade.command.sku;

import io.stockade.api.sku.SaleSettings;
import io.stockade.command.admission.AdmissionGate;
import java.time.Instant;

/**
 * A SKU as the gate sees it now ({@code GET /api/skus/{skuId}} and the answer of every sale
 * command): the gate's counters, limit and window, by the gate's clock; the pre-queue's length and
 * the pause's reason, which the gate does not hold, from the SKU's stream.
 */
record SkuView(
    String skuId,
    long total,
    long available,
    long reserved,
    long sold,
    Long perUserLimit,
    Sale sale) {

  /**
   * @param state {@code SCHEDULED}, {@code PREQUEUE}, {@code OPEN}, {@code PAUSED} or {@code
   *     CLOSED}
   */
  record Sale(
      String state, Instant opensAt, Instant closesAt, int prequeueSeconds, String pausedReason) {}

  static SkuView of(AdmissionGate.SkuState gate, SaleSettings record) {
    String state = gate.sale().name();
    if (gate.sale() == AdmissionGate.SaleState.SCHEDULED
        && record.prequeueSeconds() > 0
        && !gate.now().isBefore(gate.opensAt().minusSeconds(record.prequeueSeconds()))) {
      state = "PREQUEUE";
    }
    return new SkuView(
        gate.skuId(),
        gate.total(),
        gate.available(),
        gate.reserved(),
        gate.sold(),
        gate.perUserLimit(),
        new Sale(
            state,
            gate.opensAt(),
            gate.closesAt(),
            record.prequeueSeconds(),
            gate.paused() ? record.pausedReason() : null));
  }
}
