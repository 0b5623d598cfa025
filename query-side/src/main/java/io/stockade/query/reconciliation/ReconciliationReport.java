package io.stockade.query.reconciliation;

import java.time.Instant;
import java.util.List;

/**
 * The answer of one reconciliation check: per SKU, the gate's counters in Redis, the numbers folded
 * from the event store and the read model's, their differences and a status; the reservations whose
 * intent in the gate and row in the read model disagree; a summary.
 */
record ReconciliationReport(
    Instant generatedAt,
    Gate gate,
    Events events,
    List<Sku> skus,
    List<ReservationMismatch> reservationMismatches,
    Summary summary) {

  static final String CONSISTENT = "CONSISTENT";
  static final String IN_FLIGHT = "IN_FLIGHT";
  static final String DRIFT = "DRIFT";

  /**
   * The gate as read: {@code status} AVAILABLE or UNAVAILABLE (Redis could not be read: every SKU's
   * {@code gate} is then null and only the read model is compared with the events); {@code marker}
   * OPEN, REBUILDING or ABSENT over every partition's marker; {@code pendingAdmissions} over every
   * partition; {@code intents} the reservations with an intent, parts in several partitions counted
   * once.
   */
  record Gate(
      String status, String marker, Integer pendingAdmissions, Integer intents, String error) {}

  /** The event store as folded: the global index of the last event read. */
  record Events(long position) {}

  record Sku(
      String skuId,
      Numbers gate,
      Numbers events,
      Numbers readModel,
      Difference difference,
      String status,
      Instant since) {}

  /**
   * {@code gate} = gate minus events, {@code readModel} = read model minus events; {@code inFlight}
   * is the part of the gate's difference that work in progress explains; {@code unexplained} the
   * rest (null when the gate could not be read).
   */
  record Difference(Numbers gate, Numbers readModel, InFlight inFlight, Numbers unexplained) {}

  /**
   * Work in progress: admissions the gate counts whose {@code StockReserved} is not stored yet, and
   * confirmations or releases stored whose gate update is still to be applied.
   */
  record InFlight(int pendingAdmissions, int gateUpdatesToApply, Numbers numbers) {}

  /**
   * A reservation whose intent state in the gate ({@code intent}, null: no intent) differs from its
   * status in the read model ({@code readModel}, null: no row).
   */
  record ReservationMismatch(
      String reservationId,
      String intent,
      String readModel,
      List<String> skuIds,
      String status,
      Instant since) {}

  record Summary(
      int skus,
      int consistent,
      int inFlight,
      int drift,
      int reservationMismatches,
      int reservationMismatchesListed) {}
}
