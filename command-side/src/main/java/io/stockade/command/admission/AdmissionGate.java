package io.stockade.command.admission;

import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.sku.SaleStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Decides, atomically and fast, who may take stock. Each operation is one atomic step in Redis; the
 * gate is a filter in front of the event store, which stays the record.
 *
 * <p>No method throws for an outcome the caller must handle: an unreachable or slow gate is
 * reported as {@code unavailable} within the configured timeout. A malformed call or a corrupted
 * key is a bug and throws {@link GateScriptException}.
 */
public interface AdmissionGate {

  /**
   * Seeds a SKU's counters unless they exist, its stock split over {@code buckets} buckets. Safe to
   * repeat.
   *
   * @throws GateUnavailableException when the gate cannot be reached in time
   */
  default void register(String skuId, long initialStock, Integer perUserLimit, int buckets) {
    register(skuId, initialStock, perUserLimit, buckets, null);
  }

  /**
   * Seeds a SKU's counters unless they exist, with its sale's window in the same atomic write, so
   * that no reservation is admitted between the seeding and the schedule. Safe to repeat.
   *
   * @param schedule the window the SKU was registered with, or {@code null} for none
   * @throws GateUnavailableException when the gate cannot be reached in time
   */
  void register(
      String skuId, long initialStock, Integer perUserLimit, int buckets, Schedule schedule);

  /**
   * A sale's window as a registration seeds it: {@code version} is the sequence number of its event
   * in the SKU's stream.
   *
   * @param opensAt null for no bound
   * @param closesAt null for no bound
   */
  record Schedule(Instant opensAt, Instant closesAt, long version, int prequeueSeconds) {

    /** A window without a pre-queue. */
    public Schedule(Instant opensAt, Instant closesAt, long version) {
      this(opensAt, closesAt, version, 0);
    }
  }

  /** Takes every line of the reservation, or none. */
  AdmissionDecision reserve(Admission admission);

  /**
   * Turns the reserved units of a reservation's admission into sold units. The lines (the record's)
   * say where its intent records are; the gate acts on what they hold, and only on the admission
   * named.
   */
  default Transition confirm(
      String reservationId, AdmissionId admission, List<ReservationLine> lines) {
    return confirm(reservationId, admission, lines, null);
  }

  /**
   * Confirms a reservation's admission, wholly or in part: the units {@code confirmed} names become
   * sold, every other reserved unit of the admission goes back to available stock and the user's
   * allowance, in one step per partition.
   *
   * @param lines the record's lines of the reservation: where its intent records are
   * @param confirmed the units sold, at most one line per SKU of {@code lines}, a SKU absent for
   *     none of its units; null for every reserved unit
   */
  Transition confirm(
      String reservationId,
      AdmissionId admission,
      List<ReservationLine> lines,
      List<ReservationLine> confirmed);

  /**
   * Moves the end of a reserved admission's hold, as the gate answers it to a retry, to {@code
   * expiresAt} if that is later. It changes no stock: the hold's end is the record's business.
   */
  Transition extend(
      String reservationId, AdmissionId admission, List<ReservationLine> lines, Instant expiresAt);

  /**
   * Returns the reserved units of a reservation's admission to available stock and the user's
   * allowance. The lines say where its intent records are; the gate acts on what they hold, and
   * only on the admission named.
   */
  Transition release(
      String reservationId, AdmissionId admission, List<ReservationLine> lines, String reason);

  /**
   * Withdraws an admission whose storing failed before its transaction could commit: its units come
   * back now, unless another recorder (a concurrent retry) may still store it. Never call it when
   * the commit may have happened: the recovery sweeper settles those through the record.
   */
  Withdrawal withdraw(String reservationId, AdmissionId admission, List<ReservationLine> lines);

  /** The outcome of a withdrawal. */
  enum Withdrawal {
    /** Units back, intent gone: a retry is admitted afresh. */
    WITHDRAWN,
    /** A concurrent retry may still store it; nothing given back. */
    OTHERS_RECORDING,
    /** Stored or ended; nothing changed. */
    NOT_WITHDRAWN,
    /** The gate holds only other admissions of the id; nothing changed. */
    OTHER_ADMISSION,
    UNKNOWN,
    UNAVAILABLE
  }

  /**
   * The record refused an admission of this gate epoch (the database's epoch has moved on): the
   * gate checks Redis again before it admits anything more.
   */
  void fenced(long gateEpoch);

  /**
   * Takes a recorded admission off the gate's pending list, in every partition its lines lie in;
   * the entries of other admissions of the id stay. Best effort: never throws.
   */
  void recorded(String reservationId, AdmissionId admission, List<ReservationLine> lines);

  /**
   * Takes one pending entry off the gate's pending list, if it is the named admission's ({@link
   * AdmissionId#NONE}: if it has no intent). Best effort: never throws.
   */
  void recorded(Pending pending, AdmissionId admission);

  /**
   * Admissions pending for at least {@code bound} that are not known to be recorded, oldest first:
   * the recovery sweeper's work list. Their age is told by the clock of the Redis that admitted
   * them (which also timed the admission), never by an instance's: a skewed instance neither gives
   * up others' admissions early nor has its own given up early. A reservation whose SKUs lie in
   * several partitions of the gate has one entry per partition.
   */
  List<Pending> pendingFor(Duration bound, int limit);

  /** One entry of the pending list: the part of a reservation admitted in one partition. */
  record Pending(String reservationId, int partition) {}

  /** The gate's intent record of a pending admission's part, if it still has one. */
  Optional<Intent> intent(Pending pending);

  /**
   * What the gate recorded when it admitted (the part of) a reservation, and the state it is in
   * now; {@code lines} are the lines of the part.
   */
  record Intent(String state, String userId, List<ReservationLine> lines, AdmissionId admission) {

    public Intent {
      lines = List.copyOf(lines);
    }
  }

  /**
   * Finishes the moves of units between a SKU's buckets begun at least {@code bound} ago and left
   * unfinished (a crash, a failed Redis): their units are available again in the bucket they were
   * moved to.
   *
   * @return how many were finished
   */
  int settleTransfers(Duration bound);

  /** Adds sellable stock, once per replenishment id. */
  Replenishment replenish(String skuId, String replenishmentId, long quantity);

  /**
   * Writes the sale's schedule into every bucket of the SKU, if {@code version} (the sequence
   * number of its event in the SKU's stream) is newer than the schedule's stored one; answers once
   * every bucket holds it. From then on reserve refuses the SKU before {@code opensAt} and from
   * {@code closesAt} on, by the gate's clock (Redis {@code TIME}).
   *
   * @param opensAt null for no bound
   * @param closesAt null for no bound
   * @param prequeueSeconds the pre-queue before {@code opensAt} (0: none): reserve answers QUEUED
   *     in it, and from {@code opensAt} DRAW_IN_PROGRESS until {@link #drawn} marks its draw
   *     decided
   */
  SaleWrite schedule(
      String skuId, long version, Instant opensAt, Instant closesAt, int prequeueSeconds);

  /** {@link #schedule(String, long, Instant, Instant, int)} without a pre-queue. */
  default SaleWrite schedule(String skuId, long version, Instant opensAt, Instant closesAt) {
    return schedule(skuId, version, opensAt, closesAt, 0);
  }

  /**
   * Marks the pre-queue's draw at {@code opensAt} decided for the SKU in every bucket (version: the
   * sequence number of its {@code DrawDecided}): from then on reservations after {@code opensAt}
   * are decided as they arrive.
   */
  SaleWrite drawn(String skuId, long version, Instant opensAt);

  /**
   * Decides one queued reservation for the pre-queue's draw, as {@link #reserve} would decide it
   * now, through a draw in progress; a refusal is kept by the gate, so that a repeat (of the draw
   * or of the client) is answered with it.
   */
  AdmissionDecision draw(Admission admission);

  /**
   * Decides queued reservations of the draw in order, as {@link #draw(Admission)} decides each,
   * many in one call where the gate can; stops after the first it cannot decide now (answered
   * {@code Unavailable}, or {@code Queued} while the gate's clock is before the opening).
   *
   * @return one decision per admission decided, in order
   */
  List<AdmissionDecision> draw(List<Admission> admissions);

  /**
   * Pauses ({@code paused}) or resumes the SKU's sale in every bucket, if {@code version} is newer
   * than the pause's stored one; answers once every bucket holds it. While paused reserve refuses
   * the SKU; confirm, release and extend are not affected.
   */
  SaleWrite pause(String skuId, long version, boolean paused);

  /**
   * Changes the per-user limit (null: none) in every bucket, if {@code version} is newer than the
   * limit's stored one. A user holding more keeps the units and is refused until under it.
   */
  SaleWrite limit(String skuId, long version, Integer perUserLimit);

  /** The outcome of a sale state write. */
  enum SaleWrite {
    /** Written in at least one bucket; every bucket now holds that version or a newer one. */
    APPLIED,
    /** Every bucket held that version or a newer one already; nothing changed. */
    STALE,
    UNKNOWN_SKU,
    /** Not every bucket could be written; a repeat with the same version completes it. */
    UNAVAILABLE
  }

  /**
   * The SKU's counters summed over its buckets and its sale state, with the gate's clock now; empty
   * for an unknown SKU.
   *
   * @throws GateUnavailableException when the gate cannot be reached
   */
  Optional<SkuState> state(String skuId);

  /**
   * A SKU as the gate sees it: {@code total} is available + reserved + sold, {@code perUserLimit}
   * null for none, {@code opensAt}/{@code closesAt} null for no bound, {@code now} the gate's clock
   * (the Redis {@code TIME} of the SKU's home bucket, by which reserve decides).
   */
  record SkuState(
      String skuId,
      long total,
      long available,
      long reserved,
      long sold,
      Long perUserLimit,
      Instant opensAt,
      Instant closesAt,
      boolean paused,
      Instant now) {

    /**
     * The sale now, in the order reserve checks it (not open, closed, paused), with the pre-queue
     * and the pause's reason that the record keeps and the gate does not.
     */
    public SaleStatus sale(int prequeueSeconds, String pausedReason) {
      return SaleStatus.at(now, opensAt, closesAt, prequeueSeconds, paused, pausedReason);
    }
  }

  /**
   * Adjusts the SKU's available stock, once per adjustment id (an id space of its own, apart from
   * replenishments'). A positive quantity adds available units to the home bucket; apply it once
   * its event is stored. A negative one takes {@code -quantity} available units (never reserved or
   * sold ones, never below zero), across the SKU's buckets, or none; apply it before its event is
   * stored, then mark it {@link #adjustmentRecorded recorded}, or {@link #giveBackAdjustment give
   * it back} when storing fails: until then its takes are listed by {@link #pendingAdjustmentsFor}.
   */
  default Adjustment adjust(String skuId, String adjustmentId, long quantity) {
    return adjust(skuId, adjustmentId, quantity, "");
  }

  /**
   * As {@link #adjust(String, String, long)}, keeping {@code content} (the adjustment as its event
   * will record it, up to 512 bytes) with a negative take until it is settled, so that whoever
   * finds the take pending records it as it was asked ({@link PendingAdjustment#content}).
   */
  Adjustment adjust(String skuId, String adjustmentId, long quantity, String content);

  /**
   * The outcome of an adjustment. {@code available}: the SKU's available units after it (APPLIED,
   * DUPLICATE) or when it was refused (INSUFFICIENT); {@code recordedQuantity}: the quantity the id
   * was applied with (CONFLICT).
   */
  record Adjustment(
      AdjustmentOutcome outcome, Long available, Long recordedQuantity, long gateEpoch) {

    /** An outcome not yet stamped with the epoch of the gate that gave it. */
    public Adjustment(AdjustmentOutcome outcome, Long available, Long recordedQuantity) {
      this(outcome, available, recordedQuantity, -1);
    }

    public Adjustment inEpoch(long epoch) {
      return new Adjustment(outcome, available, recordedQuantity, epoch);
    }
  }

  enum AdjustmentOutcome {
    APPLIED,
    /** Applied before with the same quantity; nothing changed. */
    DUPLICATE,
    /** Applied before with another quantity; nothing changed. */
    CONFLICT,
    /** Fewer units available than a negative adjustment takes; nothing changed. */
    INSUFFICIENT,
    UNKNOWN_SKU,
    UNAVAILABLE
  }

  /** The adjustment's takes stay: its event is stored. Takes it off the pending list. */
  Settlement adjustmentRecorded(String skuId, String adjustmentId);

  /**
   * Gives the units of the adjustment's pending takes back to available stock and forgets the id (a
   * retry takes afresh): its event was not stored and will not be. A take already recorded is left
   * alone (RECORDED).
   */
  Settlement giveBackAdjustment(String skuId, String adjustmentId);

  /** The outcome of settling an adjustment's takes. */
  enum Settlement {
    DONE,
    /** Given back: the take is recorded; nothing given back. */
    RECORDED,
    ALREADY_DONE,
    /** Recorded: the gate has no take of that id. */
    UNKNOWN,
    UNAVAILABLE
  }

  /**
   * Negative adjustment takes pending for at least {@code bound} by the clock of the Redis that
   * took them, oldest first: the work list of a sweeper that settles takes whose event was never
   * stored. A take across several buckets has one entry per bucket.
   */
  List<PendingAdjustment> pendingAdjustmentsFor(Duration bound, int limit);

  /** One pending adjustment take, in one partition. */
  /**
   * One pending adjustment take, in one partition, of the gate open in epoch {@code gateEpoch}: its
   * record may be stored only while the gate is still in that epoch ({@link AdmissionFence}).
   */
  record PendingAdjustment(
      String skuId,
      String adjustmentId,
      int partition,
      Duration age,
      String content,
      long gateEpoch) {}

  /** The outcome of a confirm or a release. */
  enum Transition {
    /** Done now. */
    DONE,
    /** Done before: a repeat changes nothing. */
    ALREADY_DONE,
    /** Refused: the reservation went the other way (released when confirming, or the reverse). */
    NOT_ACTIVE,
    /** The gate holds only other admissions of the id (reused): nothing changed. */
    OTHER_ADMISSION,
    /** The gate has no intent record for the reservation. */
    UNKNOWN,
    /** The gate cannot decide safely now; nothing changed. */
    UNAVAILABLE
  }

  /** The outcome of a replenishment. */
  enum Replenishment {
    APPLIED,
    /** Applied before with the same quantity; nothing changed. */
    DUPLICATE,
    /** Applied before with another quantity; nothing changed. */
    CONFLICT,
    UNKNOWN_SKU,
    UNAVAILABLE
  }
}
