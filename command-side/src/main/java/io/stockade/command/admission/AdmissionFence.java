package io.stockade.command.admission;

/**
 * Lets the record accept an admission only while the gate that made it is still the gate. Called
 * inside the transaction that stores the reservation: once a rebuild of the gate has begun, no
 * admission of an earlier epoch can be stored any more, and the rebuild waits for those being
 * stored at that moment. Without it, a request admitted on counters Redis has since lost could
 * commit after the rebuild read the record, and sell a unit twice.
 */
public interface AdmissionFence {

  /**
   * @throws GateEpochChangedException when the gate is not open in {@code gateEpoch} any more
   */
  void check(long gateEpoch);
}
