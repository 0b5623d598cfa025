package io.stockade.command.admission.redis;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.command.admission.Admission;
import io.stockade.command.admission.AdmissionDecision;
import io.stockade.command.admission.AdmissionId;
import io.stockade.command.admission.ReservationTransitions.Transition;
import io.stockade.command.admission.SaleControl;
import io.stockade.command.admission.SkuStock.Replenishment;
import io.stockade.command.admission.StockAdjustments;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The admission gate's semantics, kept as plainly as possible in memory: what {@link WholeGate}
 * must agree with. A user's holdings are not counted but recomputed from the reservations, so that
 * releasing gives the allowance back by construction.
 */
final class GateModel {

  /** The counters of one SKU; {@code total} is the initial stock plus applied replenishments. */
  static final class Counters {
    long available;
    long reserved;
    long sold;
    long total;
    Integer limit;
    Instant opensAt;
    Instant closesAt;
    boolean paused;

    /** The version each part of the sale state was written with; -1: never written. */
    long scheduleVersion = -1;

    long pauseVersion = -1;
    long limitVersion = -1;

    Counters(long initial, Integer limit) {
      this.available = initial;
      this.total = initial;
      this.limit = limit;
    }
  }

  private record Intent(
      String userId,
      long holdMillis,
      Map<String, Integer> content,
      List<ReservationLine> lines,
      long sequence,
      Instant admittedAt,
      Instant expiresAt,
      String state,
      List<ReservationLine> kept) {

    Intent moveTo(String next) {
      return new Intent(
          userId, holdMillis, content, lines, sequence, admittedAt, expiresAt, next, kept);
    }

    /** Confirmed, keeping only {@code sold} of its units (a partial confirmation). */
    Intent confirmedWith(List<ReservationLine> sold) {
      return new Intent(
          userId, holdMillis, content, lines, sequence, admittedAt, expiresAt, "CONFIRMED", sold);
    }
  }

  private final long epoch;
  private final Map<String, Counters> skus = new HashMap<>();
  private final Map<String, Intent> intents = new HashMap<>();
  private final Map<String, Long> replenishments = new HashMap<>();
  private final Map<String, Long> adjustments = new HashMap<>();

  /** A model of the gate open in {@code epoch}. */
  GateModel(long epoch) {
    this.epoch = epoch;
  }

  void register(String skuId, long initialStock, Integer perUserLimit) {
    skus.putIfAbsent(skuId, new Counters(initialStock, perUserLimit));
  }

  Optional<Counters> counters(String skuId) {
    return Optional.ofNullable(skus.get(skuId));
  }

  /** Units of the SKU the user holds in reservations that are reserved or confirmed. */
  long held(String userId, String skuId) {
    long held = 0;
    for (Intent intent : intents.values()) {
      if (intent.userId().equals(userId) && !intent.state().equals("RELEASED")) {
        for (ReservationLine line : intent.kept()) {
          if (line.skuId().equals(skuId)) {
            held += line.quantity();
          }
        }
      }
    }
    return held;
  }

  /**
   * Decides an admission of already merged lines.
   *
   * @param sequence the sequence the gate gave the admission, recorded if the model admits it too
   */
  AdmissionDecision reserve(Admission admission, long sequence) {
    Map<String, Integer> content = new TreeMap<>();
    for (ReservationLine line : admission.lines()) {
      content.put(line.skuId(), line.quantity());
    }
    long holdMillis = admission.hold().toMillis();
    Intent known = intents.get(admission.reservationId());
    if (known != null) {
      boolean same =
          known.userId().equals(admission.userId())
              && known.holdMillis() == holdMillis
              && known.content().equals(content);
      return same
          ? new AdmissionDecision.Duplicate(
              known.sequence(),
              known.admittedAt(),
              known.expiresAt(),
              known.state(),
              "RESERVED".equals(known.state()),
              epoch)
          : new AdmissionDecision.Reused();
    }
    List<ReservationLine> lines = admission.lines();
    // An order naming an unknown SKU is no decision: answered so whatever its other lines.
    for (int index = 0; index < lines.size(); index++) {
      if (!skus.containsKey(lines.get(index).skuId())) {
        return new AdmissionDecision.UnknownSku(lines.get(index).skuId(), index);
      }
    }
    // The sale of every line before any line's stock: not open, closed, paused. The model's clock
    // is this machine's; the test keeps every bound a day away from it.
    Instant now = Instant.now();
    for (int index = 0; index < lines.size(); index++) {
      String sku = lines.get(index).skuId();
      Counters counters = skus.get(sku);
      if (counters.opensAt != null && now.isBefore(counters.opensAt)) {
        return new AdmissionDecision.SaleNotOpen(sku, index, counters.opensAt, null);
      }
      if (counters.closesAt != null && !now.isBefore(counters.closesAt)) {
        return new AdmissionDecision.SaleClosed(sku, index, counters.closesAt);
      }
      if (counters.paused) {
        return new AdmissionDecision.SalePaused(sku, index);
      }
    }
    for (int index = 0; index < lines.size(); index++) {
      ReservationLine line = lines.get(index);
      Counters counters = skus.get(line.skuId());
      if (counters.available < line.quantity()) {
        return new AdmissionDecision.Insufficient(line.skuId(), index);
      }
      long held = held(admission.userId(), line.skuId());
      if (counters.limit != null && held + line.quantity() > counters.limit) {
        return new AdmissionDecision.LimitExceeded(line.skuId(), index, counters.limit, held);
      }
    }
    for (ReservationLine line : lines) {
      Counters counters = skus.get(line.skuId());
      counters.available -= line.quantity();
      counters.reserved += line.quantity();
    }
    Instant expiresAt = admission.now().plus(admission.hold());
    intents.put(
        admission.reservationId(),
        new Intent(
            admission.userId(),
            holdMillis,
            content,
            lines,
            sequence,
            admission.now(),
            expiresAt,
            "RESERVED",
            lines));
    return new AdmissionDecision.Admitted(sequence, admission.now(), expiresAt, epoch);
  }

  /** The admission of the id the model holds, if any. */
  Optional<AdmissionId> admission(String reservationId) {
    return Optional.ofNullable(intents.get(reservationId))
        .map(intent -> new AdmissionId(intent.sequence(), epoch));
  }

  /** Whether the intent is the admission named: same sequence, same epoch. */
  private boolean named(Intent intent, AdmissionId admission) {
    return intent.sequence() == admission.sequence() && epoch == admission.gateEpoch();
  }

  Transition confirm(String reservationId, AdmissionId admission) {
    return confirm(reservationId, admission, null);
  }

  /** The reservation's lines, if the model holds it. */
  Optional<List<ReservationLine>> lines(String reservationId) {
    return Optional.ofNullable(intents.get(reservationId)).map(Intent::lines);
  }

  /**
   * Confirms, selling {@code sold} (null: every unit) and giving every other reserved unit back to
   * available stock and the user's allowance.
   */
  Transition confirm(String reservationId, AdmissionId admission, Map<String, Integer> sold) {
    Intent intent = intents.get(reservationId);
    if (intent == null) {
      return Transition.UNKNOWN;
    }
    if (!named(intent, admission)) {
      return Transition.OTHER_ADMISSION;
    }
    switch (intent.state()) {
      case "CONFIRMED":
        return Transition.ALREADY_DONE;
      case "RELEASED":
        return Transition.NOT_ACTIVE;
      default:
        List<ReservationLine> kept = new ArrayList<>();
        for (ReservationLine line : intent.lines()) {
          Counters counters = skus.get(line.skuId());
          int selling = sold == null ? line.quantity() : sold.getOrDefault(line.skuId(), 0);
          counters.reserved -= line.quantity();
          counters.sold += selling;
          counters.available += line.quantity() - selling;
          kept.add(new ReservationLine(line.skuId(), selling));
        }
        intents.put(reservationId, intent.confirmedWith(kept));
        return Transition.DONE;
    }
  }

  Transition release(String reservationId, AdmissionId admission) {
    Intent intent = intents.get(reservationId);
    if (intent == null) {
      return Transition.UNKNOWN;
    }
    if (!named(intent, admission)) {
      return Transition.OTHER_ADMISSION;
    }
    switch (intent.state()) {
      case "RELEASED":
        return Transition.ALREADY_DONE;
      case "CONFIRMED":
        return Transition.NOT_ACTIVE;
      default:
        for (ReservationLine line : intent.lines()) {
          Counters counters = skus.get(line.skuId());
          counters.reserved -= line.quantity();
          counters.available += line.quantity();
        }
        intents.put(reservationId, intent.moveTo("RELEASED"));
        return Transition.DONE;
    }
  }

  SaleControl.SaleWrite schedule(String skuId, long version, Instant opensAt, Instant closesAt) {
    Counters counters = skus.get(skuId);
    if (counters == null) {
      return SaleControl.SaleWrite.UNKNOWN_SKU;
    }
    if (version <= counters.scheduleVersion) {
      return SaleControl.SaleWrite.STALE;
    }
    counters.scheduleVersion = version;
    counters.opensAt = opensAt;
    counters.closesAt = closesAt;
    return SaleControl.SaleWrite.APPLIED;
  }

  SaleControl.SaleWrite pause(String skuId, long version, boolean paused) {
    Counters counters = skus.get(skuId);
    if (counters == null) {
      return SaleControl.SaleWrite.UNKNOWN_SKU;
    }
    if (version <= counters.pauseVersion) {
      return SaleControl.SaleWrite.STALE;
    }
    counters.pauseVersion = version;
    counters.paused = paused;
    return SaleControl.SaleWrite.APPLIED;
  }

  SaleControl.SaleWrite limit(String skuId, long version, Integer limit) {
    Counters counters = skus.get(skuId);
    if (counters == null) {
      return SaleControl.SaleWrite.UNKNOWN_SKU;
    }
    if (version <= counters.limitVersion) {
      return SaleControl.SaleWrite.STALE;
    }
    counters.limitVersion = version;
    counters.limit = limit;
    return SaleControl.SaleWrite.APPLIED;
  }

  /** An adjustment: available (and total) up or down, never below zero, once per id. */
  StockAdjustments.Adjustment adjust(String skuId, String adjustmentId, long quantity) {
    Counters counters = skus.get(skuId);
    if (counters == null) {
      return new StockAdjustments.Adjustment(
          StockAdjustments.AdjustmentOutcome.UNKNOWN_SKU, null, null);
    }
    String key = skuId + " " + adjustmentId;
    Long applied = adjustments.get(key);
    if (applied != null) {
      return applied == quantity
          ? new StockAdjustments.Adjustment(
              StockAdjustments.AdjustmentOutcome.DUPLICATE, counters.available, null)
          : new StockAdjustments.Adjustment(
              StockAdjustments.AdjustmentOutcome.CONFLICT, null, applied);
    }
    if (counters.available + quantity < 0) {
      return new StockAdjustments.Adjustment(
          StockAdjustments.AdjustmentOutcome.INSUFFICIENT, counters.available, null);
    }
    adjustments.put(key, quantity);
    counters.available += quantity;
    counters.total += quantity;
    return new StockAdjustments.Adjustment(
        StockAdjustments.AdjustmentOutcome.APPLIED, counters.available, null);
  }

  Replenishment replenish(String skuId, String replenishmentId, long quantity) {
    Counters counters = skus.get(skuId);
    if (counters == null) {
      return Replenishment.UNKNOWN_SKU;
    }
    String key = skuId + " " + replenishmentId;
    Long applied = replenishments.get(key);
    if (applied != null) {
      return applied == quantity ? Replenishment.DUPLICATE : Replenishment.CONFLICT;
    }
    replenishments.put(key, quantity);
    counters.available += quantity;
    counters.total += quantity;
    return Replenishment.APPLIED;
  }
}
