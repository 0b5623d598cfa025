package io.stockade.client;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/reconciliation}: per SKU, the gate's counters against the events and the read
 * model, with a status ({@code CONSISTENT}, {@code IN_FLIGHT}, {@code UNKNOWN}, {@code DRIFT}).
 * docs/api.md, "Reconciliation", says what each member means.
 */
public record ReconciliationReport(
    Instant generatedAt,
    Gate gate,
    Events events,
    ReadModel readModel,
    List<Sku> skus,
    List<ReservationMismatch> reservationMismatches,
    Summary summary) {

  public record Gate(
      String status,
      String marker,
      String scope,
      Integer pendingAdmissions,
      Integer intents,
      Instant lastFullCheck,
      String error) {}

  public record Events(long position) {}

  public record ReadModel(String status) {}

  public record Sku(
      String skuId,
      Numbers gate,
      Numbers events,
      Numbers readModel,
      Difference difference,
      String status,
      Instant since) {}

  public record Numbers(long total, long available, long reserved, long sold) {}

  public record Difference(
      Numbers gate, Numbers readModel, InFlight inFlight, Numbers unexplained) {}

  public record InFlight(
      int pendingAdmissions, int gateUpdatesToApply, int pendingAdjustments, Numbers numbers) {}

  public record ReservationMismatch(
      String reservationId,
      String intent,
      String readModel,
      List<String> skuIds,
      Sold sold,
      String status,
      Instant since) {}

  public record Sold(Map<String, Long> intent, Map<String, Long> readModel) {}

  public record Summary(
      int skus,
      int consistent,
      int inFlight,
      int drift,
      int unknown,
      Integer reservationMismatches,
      Integer reservationMismatchesListed) {}
}
