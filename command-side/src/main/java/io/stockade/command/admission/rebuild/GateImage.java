package io.stockade.command.admission.rebuild;

import io.stockade.api.StreamFold;
import io.stockade.api.reservation.ReservationAbandoned;
import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.DrawDecided;
import io.stockade.api.sku.PurchaseLimitChanged;
import io.stockade.api.sku.SalePaused;
import io.stockade.api.sku.SaleResumed;
import io.stockade.api.sku.SaleScheduled;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockAdjusted;
import io.stockade.api.sku.StockReplenished;
import io.stockade.command.admission.Admission;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the gate's keys must hold, folded from the event store: every SKU's counters, holders and
 * applied replenishments, and the intent of every reservation the gate must still recognise.
 *
 * <p>It holds what the gate will hold and no more, whatever the length of the record: a reservation
 * that ended before the retention is forgotten as soon as its end is folded.
 */
final class GateImage implements StreamFold {

  private static final Logger log = LoggerFactory.getLogger(GateImage.class);

  static final class Sku {
    long available;
    long reserved;
    long sold;
    long limit = -1;
    int buckets = 1;
    final Map<String, Long> holders = new LinkedHashMap<>();
    final Map<String, Long> replenishments = new LinkedHashMap<>();

    /** Adjustments recorded, by id: their quantity (signed). */
    final Map<String, Long> adjustments = new LinkedHashMap<>();

    /**
     * The sequence number, in the SKU's stream, of the last of its events folded: the image folds
     * every event of the stream from its start, in order, so it counts them.
     */
    long version;

    /** Epoch milliseconds; null for no bound. */
    Long opensAt;

    Long closesAt;

    /** The pre-queue before opensAt, ms (0: none). */
    long prequeue;

    long scheduleVersion = -1;

    /** The opening whose pre-queue's draw is decided (DrawDecided), epoch ms; null for none. */
    Long drawn;

    long drawnVersion = -1;
    boolean paused;
    long pauseVersion = -1;

    /** The registration (sequence 0) sets the first limit. */
    long limitVersion;
  }

  static final class Intent {
    String reservationId;
    String state;
    String userId;
    List<ReservationLine> lines;
    long sequence;
    long epoch;
    Instant admittedAt;

    /** The end of the hold as admitted: part of what a retry must match. */
    Instant reservedUntil;

    /** The end of the hold now: later than reservedUntil once extended. */
    Instant expiresAt;

    String reason;
    Instant endedAt;

    /** The units a partial confirmation sold; null unless confirmed in part. */
    List<ReservationLine> confirmed;

    /** What reserve.lua records to recognise a retry: computed for the intents written only. */
    String fingerprint() {
      return Admission.fingerprint(
          userId, Duration.between(admittedAt, reservedUntil).toMillis(), lines);
    }

    /**
     * What transition.lua records of a partial confirmation in the part of these lines: the units
     * sold of each, in their order; null unless confirmed in part.
     */
    String confirmedOf(List<ReservationLine> part) {
      if (confirmed == null) {
        return null;
      }
      Map<String, Integer> sold = new HashMap<>();
      confirmed.forEach(line -> sold.put(line.skuId(), line.quantity()));
      return recordedLines(
          part.stream()
              .map(line -> new ReservationLine(line.skuId(), sold.getOrDefault(line.skuId(), 0)))
              .toList());
    }
  }

  /** Lines as reserve.lua writes them: "sku qty sku qty ...". */
  static String recordedLines(List<ReservationLine> lines) {
    StringBuilder recorded = new StringBuilder();
    for (ReservationLine line : lines) {
      if (recorded.length() > 0) {
        recorded.append(' ');
      }
      recorded.append(line.skuId()).append(' ').append(line.quantity());
    }
    return recorded.toString();
  }

  final Map<String, Sku> skus = new LinkedHashMap<>();
  final Map<String, Intent> intents = new HashMap<>();
  long sequence;
  long events;

  /** Before this instant an ended reservation is past the retention; null keeps every one. */
  private final Instant forgetEndedBefore;

  /** An image of the gate as of {@code now}, which keeps ended intents for {@code retention}. */
  GateImage(Instant now, Duration retention) {
    this.forgetEndedBefore = now.minus(retention);
  }

  /** An image that keeps every intent. */
  GateImage() {
    this.forgetEndedBefore = null;
  }

  /**
   * Takes the state of a checkpoint (an image folded up to its position, {@link GateCheckpoints}),
   * to fold on from there: its intents that ended before this image's retention are forgotten, as a
   * fold of the whole record would have forgotten them.
   */
  void restore(long sequence, long events, Map<String, Sku> skus, Iterable<Intent> intents) {
    this.sequence = sequence;
    this.events = events;
    this.skus.putAll(skus);
    for (Intent intent : intents) {
      if (forgetEndedBefore == null
          || intent.endedAt == null
          || intent.endedAt.isAfter(forgetEndedBefore)) {
        this.intents.put(intent.reservationId, intent);
      }
    }
  }

  /** Folds one event of the record, in the record's order. */
  void apply(Object event) {
    events++;
    StreamFold.apply(event, this);
  }

  @Override
  public void on(SkuRegistered registered) {
    Sku sku = new Sku();
    sku.available = registered.initialStock();
    sku.limit = registered.perUserLimit() == null ? -1 : registered.perUserLimit();
    sku.buckets = registered.bucketCount();
    skus.put(registered.skuId(), sku);
  }

  @Override
  public void on(SaleScheduled scheduled) {
    Sku sku = sku(scheduled.skuId());
    sku.version++;
    sku.opensAt = scheduled.opensAt() == null ? null : scheduled.opensAt().toEpochMilli();
    sku.closesAt = scheduled.closesAt() == null ? null : scheduled.closesAt().toEpochMilli();
    sku.prequeue = sku.opensAt == null ? 0 : scheduled.prequeueSeconds() * 1000L;
    sku.scheduleVersion = sku.version;
  }

  @Override
  public void on(DrawDecided decided) {
    Sku sku = sku(decided.skuId());
    sku.version++;
    sku.drawn = decided.opensAt().toEpochMilli();
    sku.drawnVersion = sku.version;
  }

  @Override
  public void on(SalePaused paused) {
    Sku sku = sku(paused.skuId());
    sku.version++;
    sku.paused = true;
    sku.pauseVersion = sku.version;
  }

  @Override
  public void on(SaleResumed resumed) {
    Sku sku = sku(resumed.skuId());
    sku.version++;
    sku.paused = false;
    sku.pauseVersion = sku.version;
  }

  @Override
  public void on(PurchaseLimitChanged changed) {
    Sku sku = sku(changed.skuId());
    sku.version++;
    sku.limit = changed.perUserLimit() == null ? -1 : changed.perUserLimit();
    sku.limitVersion = sku.version;
  }

  /**
   * A recorded adjustment: its units are out of (or in) the available stock. A negative take the
   * gate made whose event was never stored is not in the record, so the rebuilt gate has its units
   * back: what the record says is what the gate holds.
   */
  @Override
  public void on(StockAdjusted adjusted) {
    Sku sku = sku(adjusted.skuId());
    sku.version++;
    sku.available += adjusted.quantity();
    sku.adjustments.put(adjusted.adjustmentId(), (long) adjusted.quantity());
  }

  @Override
  public void on(StockReplenished replenished) {
    Sku sku = sku(replenished.skuId());
    sku.version++;
    sku.available += replenished.quantity();
    sku.replenishments.put(replenished.replenishmentId(), (long) replenished.quantity());
  }

  @Override
  public void on(StockReserved reserved) {
    Intent intent = new Intent();
    intent.reservationId = reserved.reservationId();
    intent.state = "RESERVED";
    intent.userId = reserved.userId();
    intent.lines = reserved.lines();
    intent.sequence = reserved.admissionSequence();
    intent.epoch = reserved.gateEpoch();
    intent.admittedAt = reserved.reservedAt();
    intent.reservedUntil = reserved.expiresAt();
    intent.expiresAt = reserved.expiresAt();
    intents.put(reserved.reservationId(), intent);
    sequence = Math.max(sequence, reserved.admissionSequence());
    for (ReservationLine line : reserved.lines()) {
      Sku sku = sku(line.skuId());
      sku.available -= line.quantity();
      sku.reserved += line.quantity();
      sku.holders.merge(reserved.userId(), (long) line.quantity(), Long::sum);
    }
  }

  @Override
  public void on(ReservationExtended extended) {
    Intent intent = intents.get(extended.reservationId());
    if (intent != null
        && "RESERVED".equals(intent.state)
        && extended.expiresAt().isAfter(intent.expiresAt)) {
      intent.expiresAt = extended.expiresAt();
    }
  }

  @Override
  public void on(StockConfirmed confirmed) {
    Intent intent = end(confirmed.reservationId(), "CONFIRMED", confirmed.confirmedAt());
    if (intent != null) {
      // The units sold: every reserved one, or fewer (a partial confirmation, whose rest the
      // StockReleased NOT_CONFIRMED right after gives back).
      for (ReservationLine line : confirmed.lines()) {
        Sku sku = sku(line.skuId());
        sku.reserved -= line.quantity();
        sku.sold += line.quantity();
      }
      if (!confirmed.lines().equals(intent.lines)) {
        intent.confirmed = confirmed.lines();
      }
    }
  }

  @Override
  public void on(StockReleased released) {
    if (StockReleased.NOT_CONFIRMED.equals(released.reason())) {
      // The rest of a partial confirmation: the reservation stays confirmed (and its intent may be
      // forgotten already), these units are available again and no longer the user's.
      for (ReservationLine line : released.lines()) {
        Sku sku = sku(line.skuId());
        sku.reserved -= line.quantity();
        sku.available += line.quantity();
        long held = sku.holders.merge(released.userId(), (long) -line.quantity(), Long::sum);
        if (held <= 0) {
          sku.holders.remove(released.userId());
        }
      }
      return;
    }
    Intent intent = end(released.reservationId(), "RELEASED", released.releasedAt());
    if (intent != null) {
      intent.reason = released.reason();
      for (ReservationLine line : intent.lines) {
        Sku sku = sku(line.skuId());
        sku.reserved -= line.quantity();
        sku.available += line.quantity();
        long held = sku.holders.merge(intent.userId, (long) -line.quantity(), Long::sum);
        if (held <= 0) {
          sku.holders.remove(intent.userId);
        }
      }
    }
  }

  @Override
  public void on(ReservationAbandoned abandoned) {
    // Never counted: its units were given back. A late retry of the id is admitted again and
    // then refused by the record; the recovery sweeper gives those units back too.
    sequence = Math.max(sequence, abandoned.admissionSequence());
  }

  /** The intents to write: live ones, and ended ones still inside the retention. */
  Map<String, Intent> intentsToKeep(Instant now, Duration retention) {
    Map<String, Intent> kept = new LinkedHashMap<>();
    intents.forEach(
        (id, intent) -> {
          if (intent.endedAt == null || intent.endedAt.plus(retention).isAfter(now)) {
            kept.put(id, intent);
          }
        });
    return kept;
  }

  private Intent end(String reservationId, String state, Instant at) {
    Intent intent = intents.get(reservationId);
    if (intent == null || !"RESERVED".equals(intent.state)) {
      log.error("The record ends reservation {} that it does not hold as reserved", reservationId);
      return null;
    }
    intent.state = state;
    intent.endedAt = at;
    if (forgetEndedBefore != null && !at.isAfter(forgetEndedBefore)) {
      intents.remove(reservationId);
    }
    return intent;
  }

  private Sku sku(String skuId) {
    Sku sku = skus.get(skuId);
    if (sku == null) {
      log.error("The record uses SKU {} before registering it", skuId);
      sku = new Sku();
      skus.put(skuId, sku);
    }
    return sku;
  }
}
