package io.stockade.command.admission;

import java.time.Duration;
import java.util.List;

/**
 * Corrections of a SKU's available stock (adjustments), once per adjustment id, with the pending
 * takes of negative adjustments until their events are stored or given back.
 */
public interface StockAdjustments {

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
}
