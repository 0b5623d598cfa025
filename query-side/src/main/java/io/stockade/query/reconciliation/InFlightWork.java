package io.stockade.query.reconciliation;

import static java.util.stream.Collectors.toSet;

import io.stockade.query.reconciliation.ReconciliationReport.InFlight;
import io.stockade.query.reconciliation.StoredWork.Recorded;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The part of each SKU's gate-minus-events difference that work in progress explains, when younger
 * than the in-flight bound: the admissions the gate lists as pending whose {@code StockReserved} is
 * not among the events folded, the RESERVED intents whose confirmation or release is among them,
 * and the pending negative adjustments whose {@code StockAdjusted} is not. The events of those
 * reservations and SKUs are {@link StoredWork}'s. See {@link Reconciliation} for the rule.
 */
final class InFlightWork {

  /** The kinds of work in progress counted per SKU: admissions, gate updates, adjustments. */
  private static final int WORK_KINDS = 3;

  private final StoredWork storedWork;
  private final Duration bound;

  InFlightWork(StoredWork storedWork, Duration bound) {
    this.storedWork = storedWork;
    this.bound = bound;
  }

  /** What work in progress explains, per SKU: the numbers, and how many of each kind of work. */
  record Explained(Map<String, Numbers> numbers, Map<String, int[]> work) {

    static final Explained NOTHING = new Explained(Map.of(), Map.of());

    /** The numbers explained of a SKU's gate-minus-events difference. */
    Numbers of(String skuId) {
      return numbers.getOrDefault(skuId, Numbers.ZERO);
    }

    /** The SKU's work in progress, as the report lists it. */
    InFlight inFlight(String skuId) {
      int[] counts = work.getOrDefault(skuId, new int[WORK_KINDS]);
      return new InFlight(counts[0], counts[1], counts[2], of(skuId));
    }
  }

  /** The part of each SKU's gate-minus-events difference that work in progress explains. */
  Explained explain(GateReader.Snapshot gate, EventStoreFold.Snapshot events, Instant now) {
    Map<String, Numbers> explained = new HashMap<>();
    Map<String, int[]> work = new HashMap<>();
    // Per part: a reservation whose SKUs lie in several partitions has an intent record in each,
    // and each part's lines are the units that partition's counters hold (a part still RESERVED
    // while another is already CONFIRMED, say, in the middle of a confirmation).
    List<GateReader.Intent> reserved =
        gate.intents().stream()
            .filter(
                intent ->
                    intent.parts().stream()
                        .anyMatch(part -> GateReader.RESERVED.equals(part.state())))
            .toList();
    Map<String, Recorded> recorded =
        storedWork.reservations(reserved.stream().map(GateReader.Intent::reservationId).toList());
    Instant youngest = now.minus(bound);
    for (GateReader.Intent intent : reserved) {
      Recorded record = recorded.getOrDefault(intent.reservationId(), Recorded.NONE);
      boolean reservedFolded = record.reserved() != null && events.covers(record.reserved());
      // Counted once per reservation and SKU, however many parts name the SKU.
      Set<String> admitted = new HashSet<>();
      Set<String> toApply = new HashSet<>();
      for (GateReader.Part part : intent.parts()) {
        if (GateReader.RESERVED.equals(part.state())) {
          explain(part, record, reservedFolded, events, youngest, explained, admitted, toApply);
        }
      }
      admitted.forEach(sku -> work.computeIfAbsent(sku, s -> new int[WORK_KINDS])[0]++);
      toApply.forEach(sku -> work.computeIfAbsent(sku, s -> new int[WORK_KINDS])[1]++);
    }
    explainAdjustments(gate, events, explained, work);
    return new Explained(explained, work);
  }

  /**
   * What negative adjustments explain: a take the gate lists as pending, younger than the bound by
   * the clock of its Redis, whose {@code StockAdjusted} is not among the events folded (the gate
   * took the units; the record has not yet). Counted once per adjustment, however many partitions
   * it took units in.
   */
  private void explainAdjustments(
      GateReader.Snapshot gate,
      EventStoreFold.Snapshot events,
      Map<String, Numbers> explained,
      Map<String, int[]> work) {
    List<GateReader.PendingAdjustment> young =
        gate.pendingAdjustments().stream()
            .filter(take -> take.pendingFor() < bound.toMillis())
            .toList();
    if (young.isEmpty()) {
      return;
    }
    Map<String, Long> stored =
        storedWork.adjustments(
            young.stream().map(GateReader.PendingAdjustment::skuId).collect(toSet()));
    Set<String> counted = new HashSet<>();
    for (GateReader.PendingAdjustment take : young) {
      String id = take.skuId() + " " + take.adjustmentId();
      Long index = stored.get(id);
      if (index != null && events.covers(index)) {
        continue;
      }
      explained.merge(take.skuId(), new Numbers(-take.units(), -take.units(), 0, 0), Numbers::plus);
      if (counted.add(id)) {
        work.computeIfAbsent(take.skuId(), s -> new int[WORK_KINDS])[2]++;
      }
    }
  }

  /**
   * What one RESERVED part of an intent explains of its partition's counters. A pending part is
   * young by the clock of its Redis (which timed its admission), not this instance's.
   */
  private void explain(
      GateReader.Part part,
      Recorded record,
      boolean reservedFolded,
      EventStoreFold.Snapshot events,
      Instant youngest,
      Map<String, Numbers> explained,
      Set<String> admitted,
      Set<String> toApply) {
    if (part.pendingFor() != null && !reservedFolded && part.pendingFor() < bound.toMillis()) {
      // Admitted: the gate took the units; the record has not (yet).
      part.lines()
          .forEach(
              (sku, quantity) -> {
                explained.merge(sku, new Numbers(0, -quantity, quantity, 0), Numbers::plus);
                admitted.add(sku);
              });
    }
    if (record.confirmed() != null
        && events.covers(record.confirmed())
        && record.confirmedAt().isAfter(youngest)) {
      // Confirmed in the record; the gate still holds the units as reserved: those sold, and for
      // a partial confirmation those its NOT_CONFIRMED release gave back (stored with it).
      boolean givenBack = record.givenBack() != null && events.covers(record.givenBack());
      part.lines()
          .forEach(
              (sku, quantity) -> {
                long sold = Math.min(quantity, record.sold().getOrDefault(sku, 0L));
                long back = givenBack ? quantity - sold : 0;
                explained.merge(sku, new Numbers(0, -back, sold + back, -sold), Numbers::plus);
                toApply.add(sku);
              });
    } else if (record.released() != null
        && events.covers(record.released())
        && record.releasedAt().isAfter(youngest)) {
      // Released in the record; the gate still holds the units as reserved.
      part.lines()
          .forEach(
              (sku, quantity) -> {
                explained.merge(sku, new Numbers(0, -quantity, quantity, 0), Numbers::plus);
                toApply.add(sku);
              });
    }
  }
}
