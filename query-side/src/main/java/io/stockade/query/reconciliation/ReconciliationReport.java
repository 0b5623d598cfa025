package io.stockade.query.reconciliation;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The answer of one reconciliation check: per SKU, the gate's counters in Redis, the numbers folded
 * from the event store and the read model's, their differences and a status; the reservations whose
 * intent in the gate and row in the read model disagree; a summary.
 */
record ReconciliationReport(
    Instant generatedAt,
    Gate gate,
    Events events,
    ReadModel readModel,
    List<Sku> skus,
    List<ReservationMismatch> reservationMismatches,
    Summary summary) {

  static final String CONSISTENT = "CONSISTENT";
  static final String IN_FLIGHT = "IN_FLIGHT";
  static final String DRIFT = "DRIFT";

  /**
   * A part of the comparison could not be made (the gate unreadable, the read model being rebuilt)
   * and what was compared shows no drift: never reported as CONSISTENT.
   */
  static final String UNKNOWN = "UNKNOWN";

  /** Gate scope: every intent was read. */
  static final String FULL = "FULL";

  /** Gate scope: the intents that can have changed since the check before were read. */
  static final String CHANGED = "CHANGED";

  /** Read model status: compared with the events. */
  static final String COMPARED = "COMPARED";

  /**
   * The gate as read: {@code status} AVAILABLE or UNAVAILABLE (Redis could not be read: every SKU's
   * {@code gate} is then null and only the read model is compared with the events); {@code marker}
   * OPEN, REBUILDING or ABSENT over every partition's marker; {@code scope} FULL (every intent the
   * gate keeps was read) or CHANGED (a routine check: only the intents that can have changed since
   * the check before); {@code pendingAdmissions} over every partition; {@code intents} the
   * reservations whose intents were read, parts in several partitions counted once; {@code
   * lastFullCheck} when the latest full check of this instance began (null: none yet).
   */
  record Gate(
      String status,
      String marker,
      String scope,
      Integer pendingAdmissions,
      Integer intents,
      Instant lastFullCheck,
      String error) {}

  /** The event store as folded: the global index of the last event read. */
  record Events(long position) {}

  /**
   * The read model as compared: {@code status} COMPARED (also while a replay rebuilds it: the
   * models in use keep following the events until the rebuilt ones replace them).
   */
  record ReadModel(String status) {}

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
   * rest (null when the gate could not be read; {@code readModel} null while it is rebuilt).
   */
  record Difference(Numbers gate, Numbers readModel, InFlight inFlight, Numbers unexplained) {}

  /**
   * Work in progress: admissions the gate counts whose {@code StockReserved} is not stored yet,
   * confirmations or releases stored whose gate update is still to be applied, and negative
   * adjustments the gate took whose {@code StockAdjusted} is not stored yet.
   */
  record InFlight(
      int pendingAdmissions, int gateUpdatesToApply, int pendingAdjustments, Numbers numbers) {}

  /**
   * A reservation whose intent state in the gate ({@code intent}, null: no intent) differs from its
   * status in the read model ({@code readModel}, null: no row), or, both CONFIRMED, whose units
   * sold differ ({@code sold}; null for a mismatch of states).
   */
  record ReservationMismatch(
      String reservationId,
      String intent,
      String readModel,
      List<String> skuIds,
      Sold sold,
      String status,
      Instant since) {}

  /**
   * The units a confirmed reservation sold, per SKU with at least one: by the gate's intent (its
   * parts' {@code confirmed} fields, or their lines for a confirmation of every unit) and by the
   * read model's {@code confirmedLines}.
   */
  record Sold(Map<String, Long> intent, Map<String, Long> readModel) {}

  /**
   * Counts per status; the reservation mismatches are null when the intents could not be compared
   * with the read model (the gate unreadable, or the read model being rebuilt).
   */
  record Summary(
      int skus,
      int consistent,
      int inFlight,
      int drift,
      int unknown,
      Integer reservationMismatches,
      Integer reservationMismatchesListed) {}

  /**
   * This report narrowed to the SKUs that pass {@code skuFilter} and the reservation mismatches
   * that pass {@code mismatchFilter}, at most {@code listed} of them (DRIFT first, as they are
   * sorted); the summary counts what passes.
   */
  ReconciliationReport narrowed(
      Predicate<Sku> skuFilter, Predicate<ReservationMismatch> mismatchFilter, int listed) {
    List<Sku> kept = skus.stream().filter(skuFilter).toList();
    List<ReservationMismatch> matching =
        reservationMismatches.stream().filter(mismatchFilter).toList();
    List<ReservationMismatch> shown =
        matching.size() > listed ? List.copyOf(matching.subList(0, listed)) : matching;
    boolean compared = summary.reservationMismatches() != null;
    return new ReconciliationReport(
        generatedAt,
        gate,
        events,
        readModel,
        kept,
        shown,
        new Summary(
            kept.size(),
            count(kept, CONSISTENT),
            count(kept, IN_FLIGHT),
            count(kept, DRIFT),
            count(kept, UNKNOWN),
            compared ? matching.size() : null,
            compared ? shown.size() : null));
  }

  private static int count(List<Sku> skus, String status) {
    return (int) skus.stream().filter(sku -> sku.status().equals(status)).count();
  }
}
