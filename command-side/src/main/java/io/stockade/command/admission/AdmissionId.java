package io.stockade.command.admission;

/**
 * Names one admission of a reservation id: the gate's sequence number for it and the epoch of the
 * gate that admitted it, as {@code StockReserved} records them. One id can be admitted more than
 * once (reused by another user, whose admission lies in another bucket; or admitted anew after the
 * gate forgot the first one): every gate step after the admission names the admission it means, and
 * the gate leaves any other one of the id alone.
 *
 * @param gateEpoch {@link #UNKNOWN_EPOCH} for an intent the gate wrote before intents kept their
 *     epoch: such an intent is named by its sequence alone
 */
public record AdmissionId(long sequence, long gateEpoch) {

  /** The epoch of an intent written before intents kept it. */
  public static final long UNKNOWN_EPOCH = -1;

  /** No admission: for a pending entry whose intent the caller found gone. */
  public static final AdmissionId NONE = new AdmissionId(0, UNKNOWN_EPOCH);

  /** Whether the admission recorded with {@code sequence} and {@code epoch} is this one. */
  public boolean is(long sequence, long epoch) {
    return this.sequence == sequence
        && (gateEpoch == UNKNOWN_EPOCH || epoch == UNKNOWN_EPOCH || gateEpoch == epoch);
  }
}
